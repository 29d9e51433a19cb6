#!/usr/bin/env bash
# Stands in for splitforge in the build-locally.sh tests: records each
# `build` call (config and CPU_COUNT) in $FAKE_SF_CALLS and fails the config
# named by $FAKE_SF_FAIL.
set -euo pipefail
[[ ${1:-} == build ]] || { echo "fake-splitforge: only 'build' is faked" >&2; exit 2; }
shift
m='' out=''
while (($#)); do
    case $1 in -m) m=$2; shift ;; --output-folder) out=$2; shift ;; esac
    shift
done
c=$(basename "$m" .yaml)
echo "fake build of $c into $out"
echo "$c CPU_COUNT=${CPU_COUNT:-unset}" >> "${FAKE_SF_CALLS:-/dev/null}"
if [[ $c == "${FAKE_SF_FAIL:-}" ]]; then echo "fake failure" >&2; exit 3; fi
