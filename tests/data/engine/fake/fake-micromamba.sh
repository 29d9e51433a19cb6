#!/bin/bash
# A stand-in for micromamba/mamba/conda in tests: records its argv (one per
# line) in $FAKE_LOG (and its environment in $FAKE_ENV_LOG, when set), then makes the prefix look like an installed env with
# one package whose info/run_exports.json exists in a fake package cache.
set -e
printf '%s\n' "$@" >"$FAKE_LOG"
[[ -z "${FAKE_ENV_LOG:-}" ]] || env >"$FAKE_ENV_LOG"
prefix=""
while [[ $# -gt 0 ]]; do
  if [[ "$1" == "-p" ]]; then prefix=$2; shift 2; else shift; fi
done
[[ -n "$prefix" ]] || { echo "fake: no -p" >&2; exit 2; }
pkgs="$prefix/../fake-pkgs/libfoo-1.2.3-h0_0"
mkdir -p "$prefix/conda-meta" "$pkgs/info" "$prefix/bin"
echo '{"weak": ["libfoo >=1.2.3,<1.3.0a0"], "strong": ["libfoo-rt >=1.2"]}' >"$pkgs/info/run_exports.json"
cat >"$prefix/conda-meta/libfoo-1.2.3-h0_0.json" <<JSON
{"name": "libfoo", "version": "1.2.3", "build": "h0_0", "extracted_package_dir": "$pkgs"}
JSON
echo "fake: created $prefix"
