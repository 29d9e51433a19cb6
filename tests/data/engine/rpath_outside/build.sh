#!/bin/bash
set -euo pipefail
mkdir -p "$PREFIX/lib"
printf 'int sf_outside(void) { return 7; }\n' |
    cc -x c -shared -fPIC -o "$PREFIX/lib/libsf_outside.so" - -Wl,-rpath,/opt/sf-outside/lib
