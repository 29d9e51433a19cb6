#!/bin/bash
# The host's runtime library for this output (PKG_NAME), under its soname.
set -euo pipefail
case $PKG_NAME in
  libgcc-ng) lib=libgcc_s.so.1 ;;
  libstdcxx-ng) lib=libstdc++.so.6 ;;
  *) echo "install-runtime.sh: unknown output $PKG_NAME" >&2; exit 1 ;;
esac
real=$(gcc -print-file-name="$lib")
[[ -f $real ]] || { echo "install-runtime.sh: the host has no $lib" >&2; exit 1; }
mkdir -p "$PREFIX/lib"
cp "$(readlink -f "$real")" "$PREFIX/lib/$lib"
