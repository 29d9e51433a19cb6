bash "$RECIPE_DIR/install.sh" sfpy_arch
echo "X = 1" > "$SP_DIR/sfpy_arch/skipped.py"
