#!/usr/bin/env bash
# Adapter for ../shared/rerender-real/check.sh, which runs
#   $RERENDER <feedstock_dir> <pinning_cbc_file> <out_dir>
# Usage: RERENDER="bash scripts/rerender-real.sh build/src/splitforge [FLAG...]" check.sh
# FLAGs (e.g. --smithy-version 3.45.1) go to `splitforge rerender`.
set -euo pipefail
bin=$1
shift
(($# >= 3)) || { echo "usage: $0 SPLITFORGE [FLAG...] FEEDSTOCK PINNING OUT" >&2; exit 2; }
args=("$@")
n=${#args[@]}
feedstock=${args[n - 3]} pinning=${args[n - 2]} out=${args[n - 1]}
exec "$bin" rerender "$feedstock" -e "$pinning" --variants-dir "$out" "${args[@]:0:n-3}"
