#!/usr/bin/env bash
# Runs ../shared/conda-check (an independent oracle) on a channel.
# Its node_modules are installed once into a writable copy under build/.
#   scripts/conda-check.sh --install-only
#   scripts/conda-check.sh CHANNEL_DIR [--strict] [--solve "a,b"]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src="$root/../shared/conda-check"
dst="$root/${SF_BUILD_DIR:-build}/conda-check"
if [[ ! -d $src ]]; then
  echo "conda-check: $src not found (clone shared/ beside this repo)" >&2; exit 1
fi
# Tests run this in parallel, and node reads node_modules for as long as it
# runs, while an install empties it (npm ci) and rewrites the .mjs (cp). So
# every run holds the lock shared until node exits (exec keeps fd 9 open),
# and an install holds it alone: no check runs during an install, and no
# install starts under a running check. (flock converts a lock by dropping
# it first, so two runs that both find it stale cannot deadlock; the second
# finds it fresh.)
mkdir -p "$dst"
exec 9>"$dst/.install.lock"
stale() { [[ ! -f $dst/node_modules/.installed ]] || [[ $src/package-lock.json -nt $dst/node_modules/.installed ]]; }
flock -s 9
if stale; then
  flock -x 9
  if stale; then
    command -v npm >/dev/null || { echo "conda-check: npm is missing (apt-get install npm)" >&2; exit 1; }
    cp "$src"/*.mjs "$src"/package.json "$src"/package-lock.json "$dst"/
    (cd "$dst" && npm ci --no-audit --no-fund --loglevel=error >&2)
    touch "$dst/node_modules/.installed"
  fi
  flock -s 9
fi
[[ ${1:-} == --install-only ]] && exit 0
exec node "$dst/check-channel.mjs" "$@"
