#!/bin/bash
set -euo pipefail
mkdir -p "$PREFIX/lib"
printf 'int app(void) { return 1; }\n' > "$SRC_DIR/app.c"
"${CC:-cc}" -shared -fPIC -o "$PREFIX/lib/libapp.so" "$SRC_DIR/app.c"
