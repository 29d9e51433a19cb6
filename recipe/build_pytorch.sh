#!/bin/bash
# pytorch (once per Python): point the existing CMake cache at this Python,
# then let pip build the wheel; only the Python-dependent targets recompile.
set -euxo pipefail
if [[ "${megabuild}" == "true" ]]; then
  "${SPLITFORGE}" cmake-cache retarget-python build/CMakeCache.txt --python "${PYTHON}"
fi
export CMAKE_GENERATOR=Ninja MAX_JOBS=${CPU_COUNT} BUILD_TEST=0
export USE_CUDA=$([[ "${cuda_compiler_version}" == "None" ]] && echo 0 || echo 1)
${PYTHON} -m pip install . --no-deps --no-build-isolation -vv
# The libraries come from libtorch; keep only the Python package's own files.
rm -f "${SP_DIR}"/torch/lib/libtorch{,_cpu,_cuda,_cuda_linalg,_global_deps}.so "${SP_DIR}"/torch/lib/libc10{,_cuda}.so "${SP_DIR}"/torch/lib/libshm.so
