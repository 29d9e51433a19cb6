#!/bin/bash
set -euo pipefail
mkdir -p "$PREFIX/share/tiny"
echo "$flavour" > "$PREFIX/share/tiny/flavour.txt"
