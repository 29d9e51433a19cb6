mkdir -p "$PREFIX/share"
echo b > "$PREFIX/share/ov-b.txt"
# The work dir ($SRC_DIR is <work>/staging-<label>/work): sf-ov-a's test looks here.
touch "$SRC_DIR/../../ov-b-built"
