# The host env holds sf-ov-a, or (sf_ov_c_host=sf-ov-link) the sf-ov-b that sf-ov-link depends on.
test -f "$PREFIX/share/ov-a.txt" || test -f "$PREFIX/share/ov-b.txt"
mkdir -p "$PREFIX/share"
echo c > "$PREFIX/share/ov-c.txt"
