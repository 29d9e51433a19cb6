#!/bin/bash
test "$CONDA_BUILD_STATE" = BUILD
test -n "$PY_VER" && test -n "$SHLIB_EXT" && test -n "$PKG_BUILD_STRING"
mkdir -p "$PREFIX/lib" static
echo so > "$PREFIX/lib/libsfcbo${SHLIB_EXT}"
echo la > "$PREFIX/lib/libsfcbo.la"
echo a > static/libsfcbo.a
