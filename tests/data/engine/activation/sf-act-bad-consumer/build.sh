mkdir -p "$PREFIX/share"
echo "$SF_ACT_BAD" > "$PREFIX/share/sf-act-bad.txt"
