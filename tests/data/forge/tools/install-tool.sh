#!/bin/bash
# $PREFIX/bin/<tool> (and the tools that come with it) exec the host's.
set -euo pipefail
case $PKG_NAME in
  autoconf) tools=(autoconf autoreconf autoheader autom4te autoscan autoupdate ifnames) ;;
  automake) tools=(automake aclocal) ;;
  libtool) tools=(libtoolize) ; command -v libtool >/dev/null && tools+=(libtool) ;;
  *) tools=("$PKG_NAME") ;;
esac
mkdir -p "$PREFIX/bin"
for t in "${tools[@]}"; do
  real=$(command -v "$t") || { echo "install-tool.sh: the host has no $t" >&2; exit 1; }
  printf '#!/bin/sh\nexec %s "$@"\n' "$real" > "$PREFIX/bin/$t"
  chmod 755 "$PREFIX/bin/$t"
done
