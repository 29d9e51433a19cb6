#!/bin/bash
# libtorch: the shared C++ libraries, headers and CMake config from the
# staging tree, without anything that links libpython.
set -euxo pipefail
cmake --install build --prefix "${PREFIX}"
rm -f "${PREFIX}"/lib/libtorch_python.* "${PREFIX}"/lib/libtorch_cuda_linalg.*
rm -rf "${PREFIX}/lib/python"* "${PREFIX}/bin/torchrun"
