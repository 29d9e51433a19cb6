#!/usr/bin/env bash
# Configures and builds splitforge into ${SF_BUILD_DIR:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${SF_BUILD_DIR:-build}
jobs=${CPU_COUNT:-$(nproc)}
[[ -f $build/build.ninja ]] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
cmake --build "$build" -j "$jobs" >&2
