#!/usr/bin/env bash
# Rerender time against the size of a recipe's conda_build_config.yaml: a
# small feedstock whose recipe config holds N keys `key_<i>: ['<i>']` (the
# recipe uses one of them), rerendered with a one-key pinning, one fresh
# process per N. The cost of a key must not grow with the number of keys
# (issue 30: 100k keys in under 2 s, Release or RelWithDebInfo).
#   bash bench/rerender/keys_scaling.sh [SPLITFORGE] [N...]
# Run by hand; nothing here is timed by the tests.
set -euo pipefail
bin=${1:-build/src/splitforge}
shift || true
sizes=("$@")
((${#sizes[@]})) || sizes=(2000 8000 32000 100000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in "${sizes[@]}"; do
  fs=$tmp/keys-$n-feedstock
  mkdir -p "$fs/recipe"
  printf 'conda_build:\n  pkg_format: "2"\n' >"$fs/conda-forge.yml"
  cat >"$fs/recipe/meta.yaml" <<'META'
package:
  name: keys
  version: 1.0.0
build:
  number: 0
requirements:
  host:
    - key_7 {{ key_7 }}
    - python
META
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "key_%d: \x27%d\x27\n", i, i }' >"$fs/recipe/conda_build_config.yaml"
  printf 'python:\n  - 3.12.* *_cpython\n' >"$tmp/pinning-$n.yaml"
  rm -rf "$tmp/out"
  # Wall and CPU (user + sys) seconds: on a busy machine the CPU time is the measure.
  TIMEFORMAT='%R %U %S'
  t=$( { time "$bin" rerender "$fs" -e "$tmp/pinning-$n.yaml" --variants-dir "$tmp/out" >/dev/null; } 2>&1 | tail -1)
  read -r wall user sys <<<"$t"
  printf '%7d keys (%s): %s s wall, %.2f s cpu\n' "$n" "$(du -h "$fs/recipe/conda_build_config.yaml" | cut -f1)" \
    "$wall" "$(echo "$user + $sys" | bc)"
done
