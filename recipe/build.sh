#!/bin/bash
# Staging build (libtorch-split): compile every Python-independent library
# once for this (cpu|cuda) x (generic|mkl) variant. The outputs' scripts then
# install their part of the tree; pytorch rebuilds only the Python bits.
set -euxo pipefail

export CMAKE_GENERATOR=Ninja
export MAX_JOBS=${CPU_COUNT}
export BUILD_TEST=0
export USE_NUMA=0
export USE_ITT=0
export USE_SYSTEM_SLEEF=1
export USE_SYSTEM_PYBIND11=0
export BUILD_CUSTOM_PROTOBUF=OFF
export CMAKE_PREFIX_PATH=${PREFIX}
export CMAKE_INSTALL_PREFIX=${PREFIX}
export CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_SKIP_RPATH=ON"

case "${blas_impl}" in
  generic) export BLAS=OpenBLAS USE_MKLDNN=1 ;;
  mkl)     export BLAS=MKL USE_MKLDNN=1 ;;
esac

if [[ "${cuda_compiler_version}" == "None" ]]; then
  export USE_CUDA=0
else
  export USE_CUDA=1 USE_CUDNN=1 USE_NCCL=1 USE_SYSTEM_NCCL=1
  export CUDA_TOOLKIT_ROOT_DIR=${PREFIX}
  export TORCH_CUDA_ARCH_LIST="5.0;6.0;7.0;7.5;8.0;8.6;8.9;9.0+PTX"
  # Build libtorch_cuda_linalg without magma first and keep a copy ...
  export USE_MAGMA=0
fi

# setup.py runs cmake only once (while build/CMakeCache.txt does not exist);
# everything after that edits the cache instead of re-running configure.
${PYTHON} setup.py build --cmake-only
cmake --build build --parallel "${CPU_COUNT}"

if [[ "${cuda_compiler_version}" != "None" ]]; then
  mkdir -p stash/nomagma stash/magma
  cp build/lib/libtorch_cuda_linalg.so stash/nomagma/
  # ... then flip magma on in the cache and rebuild only that library.
  "${SPLITFORGE}" cmake-cache set build/CMakeCache.txt USE_MAGMA:BOOL=ON
  cmake --build build --target torch_cuda_linalg --parallel "${CPU_COUNT}"
  cp build/lib/libtorch_cuda_linalg.so stash/magma/
  "${SPLITFORGE}" cmake-cache set build/CMakeCache.txt USE_MAGMA:BOOL=OFF
fi
