test -f "$PREFIX/share/ov-a.txt"
mkdir -p "$PREFIX/share"
echo c > "$PREFIX/share/ov-c.txt"
