mkdir -p "$PREFIX/etc/conda/activate.d"
cat > "$PREFIX/etc/conda/activate.d/sf-act-bad.sh" <<'EOS'
export SF_ACT_BAD=1
false
export SF_ACT_BAD=2
EOS
