# we are using a separate file here to avoid conda-build thinking that
# magma is used in top level package build
source $RECIPE_DIR/build_common.sh
