mkdir -p "$PREFIX/lib"
echo top > "$PREFIX/lib/libtop.txt"
