#!/bin/bash
# libtorch: the Python-independent libraries, headers and CMake package,
# installed from the staging build tree (nothing is compiled here).
set -euo pipefail

build="$SRC_DIR/build"
cmake --install "$build" --component libtorch --prefix "$PREFIX"
cmake --install "$build" --component headers --prefix "$PREFIX"
