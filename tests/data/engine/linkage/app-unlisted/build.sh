#!/bin/bash
set -euo pipefail
mkdir -p "$PREFIX/lib"
printf 'int foo(void);\nint app(void) { return foo() + 1; }\n' > "$SRC_DIR/app.c"
"${CC:-cc}" -shared -fPIC -o "$PREFIX/lib/libapp.so" "$SRC_DIR/app.c" -L"$PREFIX/lib" -lfoo -Wl,-rpath,"$PREFIX/lib"
