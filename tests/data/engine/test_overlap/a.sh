mkdir -p "$PREFIX/share"
echo a > "$PREFIX/share/ov-a.txt"
