#!/usr/bin/env bash
# Configures and builds splitforge into ${SF_BUILD_DIR:-build}.
#   scripts/configure.sh              every target: the binary, the tests, the benchmarks
#   scripts/configure.sh TARGET...    only those targets (and what they need), e.g.
#                                     `splitforge` for build-locally.sh and CI jobs
# Both build in the same directory with the same options, so a later full
# build (scripts/test.sh) reuses what a subset built.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${SF_BUILD_DIR:-build}
jobs=${CPU_COUNT:-$(nproc)}
targets=()
(($# == 0)) || targets=(--target "$@")
[[ -f $build/build.ninja ]] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
cmake --build "$build" -j "$jobs" ${targets[@]+"${targets[@]}"} >&2
