#!/bin/bash
# Configure, build and install miniblas into $PREFIX.
set -euo pipefail

# CMAKE_ARGS carries -DCMAKE_INSTALL_PREFIX/-DCMAKE_PREFIX_PATH from the engine.
# shellcheck disable=SC2086
cmake -S "$SRC_DIR" -B "$SRC_DIR/build" -G Ninja \
  ${CMAKE_ARGS:-} \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$PREFIX" \
  -DCMAKE_INSTALL_LIBDIR=lib
cmake --build "$SRC_DIR/build" -j "${CPU_COUNT:-2}"
cmake --install "$SRC_DIR/build" --prefix "$PREFIX"
