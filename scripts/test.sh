#!/usr/bin/env bash
# The test command from the README: installs what is missing, builds, runs
# the Catch2/CTest suite and the conda-check conformance checker.
# Everything runs by default (the `slow` end-to-end demo builds take well
# under a minute here); SF_TEST_LABELS=fast leaves them out.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/configure.sh
build=${SF_BUILD_DIR:-build}
bash scripts/conda-check.sh --install-only
exclude=()
[[ ${SF_TEST_LABELS:-} == fast ]] && exclude=(-LE slow)
ctest --test-dir "$build" --output-on-failure -j "${CPU_COUNT:-$(nproc)}" "${exclude[@]}"
