mkdir -p "$PREFIX/share/sf-v1-default-script"
echo "from build.sh" > "$PREFIX/share/sf-v1-default-script/made-by-build-sh.txt"
