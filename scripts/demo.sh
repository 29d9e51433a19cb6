#!/usr/bin/env bash
# The embedded demo, end to end, through `splitforge build`:
#   1. minimagma and miniblas (the demo's libcblas) into the local channel output/;
#   2. minitorch for every available variant (cpu always; cuda when nvcc is
#      found; mkl when MKL is found) and every Python found (PATH + pyenv);
#   3. the independent oracle: conda-check --strict --solve "pytorch,libtorch".
# Usage: scripts/demo.sh [OUTPUT_DIR] [extra `splitforge build` args...]
#   e.g. scripts/demo.sh output --variant python=3.12,3.13 --variant cuda_compiler_version=None
# SPLITFORGE=/path/to/splitforge picks the binary (default: the newest build*/src/splitforge).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-build_artifacts/demo-channel}
shift || true
if [[ -z "${SPLITFORGE:-}" ]]; then
  SPLITFORGE=$(ls -t "$root"/build*/src/splitforge 2>/dev/null | head -n1 || true)
fi
[[ -x "${SPLITFORGE:-}" ]] || { echo "demo.sh: no splitforge binary (build it, or set SPLITFORGE)" >&2; exit 1; }
echo "==> using $SPLITFORGE, channel $out" >&2
t0=$(date +%s)
"$SPLITFORGE" build "$root/demo/minimagma/recipe" --output-folder "$out" -q
"$SPLITFORGE" build "$root/demo/miniblas/recipe" --output-folder "$out" -q
"$SPLITFORGE" build "$root/demo/minitorch/recipe" --output-folder "$out" --skip-unavailable -q "$@"
echo "==> built in $(( $(date +%s) - t0 ))s; checking the channel" >&2
SF_BUILD_DIR=$(basename "$(dirname "$(dirname "$SPLITFORGE")")") \
  bash "$root/scripts/conda-check.sh" "$out" --strict --solve "pytorch,libtorch"
