#!/usr/bin/env bash
# The test command from the README: installs what is missing, builds, runs
# the Catch2/CTest suite and the conda-check conformance checker.
# SF_TEST_LABELS=all also runs the tests labelled `slow`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/configure.sh
build=${SF_BUILD_DIR:-build}
bash scripts/conda-check.sh --install-only
exclude=(-LE slow)
[[ ${SF_TEST_LABELS:-} == all ]] && exclude=()
ctest --test-dir "$build" --output-on-failure -j "${CPU_COUNT:-$(nproc)}" "${exclude[@]}"
