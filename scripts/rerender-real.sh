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
flags=("${args[@]:0:n-3}")
# conda-smithy's rules changed between versions, and the corpus records which
# one wrote each case (MANIFEST.tsv's conda_smithy_version, see its README).
# When check.sh's CORPUS is in the environment and no --smithy-version was
# given, reproduce that version; check.sh runs each case in <work>/<case>/.
if [[ -n "${CORPUS:-}" && -f "$CORPUS/MANIFEST.tsv" && " ${flags[*]} " != *" --smithy-version "* ]]; then
  case_name=$(basename "$(dirname "$feedstock")")
  version=$(awk -F'\t' -v c="$case_name" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == "conda_smithy_version") col = i; next }
    col && $1 == c { print $col; exit }' "$CORPUS/MANIFEST.tsv")
  if [[ -n "$version" ]]; then flags+=(--smithy-version "$version"); fi
fi
exec "$bin" rerender "$feedstock" -e "$pinning" --variants-dir "$out" "${flags[@]}"
