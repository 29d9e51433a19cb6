#!/usr/bin/env bash
# Adapter for ../shared/rerender-real/check.sh, which runs
#   $RERENDER <feedstock_dir> <pinning_cbc_file> <out_dir>
# Usage: RERENDER="bash scripts/rerender-real.sh build/src/splitforge" ../shared/rerender-real/check.sh
set -euo pipefail
bin=$1 feedstock=$2 pinning=$3 out=$4
exec "$bin" rerender "$feedstock" -e "$pinning" --variants-dir "$out"
