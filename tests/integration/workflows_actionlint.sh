#!/usr/bin/env bash
# CTest "workflows: actionlint": actionlint accepts the repository's
# generated workflows and those `rerender --ci github` writes for the test
# feedstock (time_limit chain, CUDA tests, per-Python matrix); and it is
# really run: a broken copy must fail it.
#   tests/integration/workflows_actionlint.sh SPLITFORGE
set -euo pipefail
sf=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The recipes' self-hosted runner labels (actionlint.yaml's self-hosted-runner.labels).
labels=(--self-hosted-label cirun-openstack-cpu-2xlarge --self-hosted-label cirun-openstack-gpu-2xlarge
        --self-hosted-label cirun-large-cpu --self-hosted-label cirun-large-gpu)
lint() { bash "$root/scripts/actionlint.sh" "${labels[@]}" "$@"; }
shopt -s nullglob
repo=("$root"/.github/workflows/*.yml)
((${#repo[@]} > 0)) || { echo "no workflows in $root/.github/workflows" >&2; exit 1; }
lint "${repo[@]}"
cp -r "$root/tests/data/feedstock/ci/." "$tmp/"
(cd "$tmp" && "$sf" rerender recipe --ci github >/dev/null)
made=("$tmp"/.github/workflows/*.yml)
((${#made[@]} == 1)) || { echo "rerender --ci github wrote ${#made[@]} workflows, expected 1" >&2; exit 1; }
grep -q -- '--staging-only --time-limit' "${made[0]}" || { echo "no time_limit chain in ${made[0]}" >&2; exit 1; }
lint "${made[@]}"
sed 's/timeout-minutes: 900/timeout-minutes: soon/' "${made[0]}" > "$tmp/broken.yml"
if lint "$tmp/broken.yml" > "$tmp/broken.out"; then
  echo "actionlint accepted a broken workflow: it is not really running" >&2; exit 1
fi
grep -q 'broken.yml:' "$tmp/broken.out"
echo "actionlint: ${#repo[@]} repository and ${#made[@]} generated workflow(s) clean"
