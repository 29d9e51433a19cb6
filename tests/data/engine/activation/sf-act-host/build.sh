mkdir -p "$PREFIX/etc/conda/activate.d"
cat > "$PREFIX/etc/conda/activate.d/sf-act-host.sh" <<'EOS'
export SF_ACT_SEEN="${SF_ACT_SEEN:+$SF_ACT_SEEN,}host"
export SF_ACT_HOST=yes
EOS
