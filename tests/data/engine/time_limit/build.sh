#!/bin/bash
set -euo pipefail
mkdir -p "$SRC_DIR/build"
cd "$SRC_DIR/build"
# The same build.ninja on every run, so a resumed run finds its edges done.
{
  echo 'rule step'
  echo '  command = sleep 0.5 && echo $out > $out'
  for i in 01 02 03 04 05 06 07 08 09 10; do echo "build o$i: step"; done
} > build.ninja
ninja -j1
mkdir -p "$PREFIX/share/sftl"
cp o* "$PREFIX/share/sftl/"
