#!/bin/bash
# The interpreter's prefix into $PREFIX, without what no build needs (test
# suites, idle/tkinter, caches, site-packages' contents, a static libpython).
set -euo pipefail
src=${FORGE_PYTHON_PREFIX:?the test names the host prefix to package (build/script_env)}
minor=$(echo "$PKG_VERSION" | cut -d. -f1-2)
mkdir -p "$PREFIX/lib/python$minor/site-packages"
cp -a "$src/bin" "$src/include" "$PREFIX/"
cp -a "$src"/lib/libpython* "$PREFIX/lib/"
rm -f "$PREFIX"/lib/libpython*.a
[[ -d $src/lib/pkgconfig ]] && cp -a "$src/lib/pkgconfig" "$PREFIX/lib/"
(cd "$src/lib/python$minor" && tar -cf - --exclude=./test --exclude=./idlelib --exclude=./tkinter \
  --exclude=./turtledemo --exclude=./site-packages --exclude='__pycache__' --exclude='config-*/*.a' .) |
  (cd "$PREFIX/lib/python$minor" && tar -xf -)
# Only the interpreter: pip, setuptools and their launchers are the channel's own packages.
find "$PREFIX/bin" -maxdepth 1 \( -name 'pip*' -o -name 'easy_install*' -o -name 'idle*' -o -name 'pydoc*' -o -name '2to3*' \) -delete
ln -sf "python$minor" "$PREFIX/bin/python"
ln -sf "python$minor" "$PREFIX/bin/python3"
# Its libraries from beside it, not from the host prefix it was built in.
patchelf --set-rpath '$ORIGIN/../lib' "$PREFIX/bin/python$minor"
find "$PREFIX/lib/python$minor/lib-dynload" -name '*.so' -exec patchelf --set-rpath '$ORIGIN/../..' {} +
# Text files that name the host prefix (sysconfig's data, python-config,
# the Makefile, .pc files) name this one, so packaging makes them relocatable.
grep -rlI --null -F "$src" "$PREFIX" | xargs -0 -r sed -i "s|$src|$PREFIX|g"
