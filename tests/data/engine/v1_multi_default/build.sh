mkdir -p "$PREFIX/share/sf-v1-multi"
echo "staged by build.sh" > "$PREFIX/share/sf-v1-multi/staged.txt"
