bash "$RECIPE_DIR/install.sh" sfpy_noarch
