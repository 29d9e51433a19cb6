#!/bin/bash
# Staging build of libtorch-split, run once per non-Python variant
# (cuda_compiler_version x blas_impl). It configures CMake into
# $SRC_DIR/build and builds every non-Python target; the outputs' scripts
# then install their parts from that same build tree.
#
# With CUDA, libtorch_cuda_linalg is built twice from this one tree: first
# without magma (stashed), then USE_MAGMA is flipped in CMakeCache.txt and
# only that target is rebuilt (stashed too). build_linalg.sh picks one.
#
# The CPU variant with the generic BLAS also configures a second, static tree
# ($SRC_DIR/build-static, BUILD_SHARED_LIBS=OFF, no Python) for
# libtorch-static, from which the static libtorch archives are made.
set -euo pipefail
: "${blas_impl:?blas_impl (generic/mkl) must be set by the engine}"

build="$SRC_DIR/build"
stash="$SRC_DIR/stash"

if [[ "${cuda_compiler_version:-None}" != "None" ]]; then
  use_cuda=ON
else
  use_cuda=OFF
fi

cmake_args=(
  -G Ninja
  -DCMAKE_BUILD_TYPE=Release
  -DBLAS="${blas_impl}"
  -DUSE_CUDA="${use_cuda}"
  -DUSE_MAGMA=OFF
  -DBUILD_PYTHON=ON
  # megabuild: a fixed Python (the top-level host's); build_pytorch.sh
  # retargets the cache for each Python.
  -DPython_EXECUTABLE="${PYTHON}"
)
if [[ "$use_cuda" == ON ]]; then
  cmake_args+=(-DCMAKE_CUDA_COMPILER="${NVCC:-nvcc}" -DCMAKE_CUDA_ARCHITECTURES=75)
fi

# CMAKE_ARGS (from the engine) holds CMAKE_INSTALL_PREFIX and CMAKE_PREFIX_PATH.
# shellcheck disable=SC2086
cmake -S "$SRC_DIR" -B "$build" ${CMAKE_ARGS:-} "${cmake_args[@]}"
cmake --build "$build" -j "${CPU_COUNT:-2}"

if [[ "$use_cuda" == ON ]]; then
  # cmake --install rewrites the build RPATHs to the relocatable $ORIGIN ones.
  rm -rf "$stash"
  cmake --install "$build" --component cuda_linalg --prefix "$stash/nomagma"

  "$SPLITFORGE" cmake-cache set "$build/CMakeCache.txt" USE_MAGMA:BOOL=ON
  cmake --build "$build" -j "${CPU_COUNT:-2}" --target torch_cuda_linalg
  cmake --install "$build" --component cuda_linalg --prefix "$stash/magma"

  # Back to OFF, so that later re-configures (per-Python builds) do not need
  # minimagma in their host prefix. Nothing rebuilds linalg after this.
  "$SPLITFORGE" cmake-cache set "$build/CMakeCache.txt" USE_MAGMA:BOOL=OFF
fi

if [[ "$use_cuda" == OFF && "$blas_impl" == generic ]]; then
  # shellcheck disable=SC2086
  cmake -S "$SRC_DIR" -B "$SRC_DIR/build-static" ${CMAKE_ARGS:-} -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBLAS=generic -DUSE_CUDA=OFF -DBUILD_PYTHON=OFF -DBUILD_SHARED_LIBS=OFF \
    -DTORCH_INSTALL_CMAKEDIR=share/cmake/TorchStatic
  cmake --build "$SRC_DIR/build-static" -j "${CPU_COUNT:-2}"
fi
