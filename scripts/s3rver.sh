#!/usr/bin/env bash
# Runs s3rver (npm's S3-compatible server) for the upload tests, installed
# once from tests/data/s3rver's lock file into a writable copy under build/,
# as scripts/conda-check.sh installs conda-check.
#   scripts/s3rver.sh --install-only
#   scripts/s3rver.sh --directory DIR --address 127.0.0.1 --port PORT ...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src="$root/tests/data/s3rver"
dst="$root/${SF_BUILD_DIR:-build}/s3rver"
mkdir -p "$dst"
# Tests start it in parallel; an install empties node_modules (npm ci), so
# a run holds the lock shared while node runs and an install holds it alone.
exec 9>"$dst/.install.lock"
stale() { [[ ! -f $dst/node_modules/.installed ]] || [[ $src/package-lock.json -nt $dst/node_modules/.installed ]]; }
flock -s 9
if stale; then
  flock -x 9
  if stale; then
    command -v npm >/dev/null || { echo "s3rver: npm is missing (apt-get install npm)" >&2; exit 1; }
    cp "$src"/package.json "$src"/package-lock.json "$dst"/
    (cd "$dst" && npm ci --no-audit --no-fund --loglevel=error >&2)
    touch "$dst/node_modules/.installed"
  fi
  flock -s 9
fi
[[ ${1:-} == --install-only ]] && exit 0
exec node "$dst/node_modules/s3rver/bin/s3rver.js" "$@"
