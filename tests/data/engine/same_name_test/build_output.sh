mkdir -p "$PREFIX/share/sf-same-name"
echo ok > "$PREFIX/share/sf-same-name/ok.txt"
