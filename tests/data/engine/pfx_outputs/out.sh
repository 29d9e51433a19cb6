mkdir -p "$PREFIX/share"
echo "$PKG_NAME" > "$PREFIX/share/$PKG_NAME.txt"
