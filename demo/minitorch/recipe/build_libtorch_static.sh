#!/bin/bash
# libtorch-static: the static libraries and their CMake package
# (share/cmake/TorchStatic: find_package(Torch PATHS <prefix>/share/cmake/TorchStatic)),
# installed from build.sh's static tree. The headers are libtorch's.
set -euo pipefail

cmake --install "$SRC_DIR/build-static" --component libtorch --prefix "$PREFIX"
