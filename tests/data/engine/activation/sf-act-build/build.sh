mkdir -p "$PREFIX/etc/conda/activate.d"
cat > "$PREFIX/etc/conda/activate.d/sf-act-build.sh" <<'EOS'
export SF_ACT_SEEN="${SF_ACT_SEEN:+$SF_ACT_SEEN,}build"
export SF_ACT_BUILD_PREFIX="$CONDA_PREFIX"
EOS
