#!/bin/bash
set -euo pipefail
mkdir -p "$PREFIX/lib"
printf 'int foo(void) { return 42; }\n' > "$SRC_DIR/foo.c"
"${CC:-cc}" -shared -fPIC -Wl,-soname,libfoo.so.1 -o "$PREFIX/lib/libfoo.so.1" "$SRC_DIR/foo.c"
ln -s libfoo.so.1 "$PREFIX/lib/libfoo.so"
