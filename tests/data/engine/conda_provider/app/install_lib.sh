set -e
test -f "$PREFIX/share/sfc-dep/dep.txt"   # the host env has the -c channel's package
mkdir -p "$PREFIX/share/sfc-lib"
echo lib > "$PREFIX/share/sfc-lib/lib.txt"
