#!/bin/bash
# libtorch-cuda-linalg: ship the magma or nomagma library that build.sh
# stashed. with_magma is an output-local variant key (see extra/splitforge).
set -euo pipefail
: "${with_magma:?with_magma (true/false) must be set by the engine}"

if [[ "${with_magma}" == "true" || "${with_magma}" == "True" ]]; then
  flavour=magma
else
  flavour=nomagma
fi
src="$SRC_DIR/stash/$flavour/lib/libtorch_cuda_linalg${SHLIB_EXT:-.so}"
if [[ ! -f "$src" ]]; then
  echo "build_linalg.sh: $src is missing (did the staging build run with CUDA?)" >&2
  exit 1
fi
mkdir -p "$PREFIX/lib"
cp -p "$src" "$PREFIX/lib/"
