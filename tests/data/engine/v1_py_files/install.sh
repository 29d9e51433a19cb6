# One package's Python files: the module under $SP_DIR, a script in bin/, a
# stray .pyo and an optimized .pyc (both removed by the post-processing),
# and share/info/dir (removed too).
set -ex
name=${1:?package dir name}
mkdir -p "$SP_DIR/$name" "$PREFIX/bin" "$PREFIX/share/info" "$PREFIX/share/$name"
cp "$RECIPE_DIR/src/sfpy/__init__.py" "$RECIPE_DIR/src/sfpy/cli.py" "$SP_DIR/$name/"
sed -i "s/from sfpy import/from $name import/" "$SP_DIR/$name/cli.py"
mkdir -p "$SP_DIR/$name-1.0.dist-info"
echo pip > "$SP_DIR/$name-1.0.dist-info/INSTALLER"
printf 'Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n' "$name" > "$SP_DIR/$name-1.0.dist-info/METADATA"
cp "$RECIPE_DIR/src/sfpy-tool" "$PREFIX/bin/$name-tool"
chmod +x "$PREFIX/bin/$name-tool"
echo stale > "$SP_DIR/$name/old.pyo"
mkdir -p "$SP_DIR/$name/__pycache__"
echo stale > "$SP_DIR/$name/__pycache__/cli.cpython-39.opt-1.pyc"
echo info > "$PREFIX/share/info/dir"
echo data > "$PREFIX/share/$name/data.txt"
