source $RECIPE_DIR/build.sh
