#!/bin/bash
# pytorch, once per Python: point the staging build's CMake cache at this
# output's Python, rebuild only the Python targets (libtorch_python and
# torch/_C; every other object is up to date), and install them.
set -euo pipefail

build="$SRC_DIR/build"

"$SPLITFORGE" cmake-cache retarget-python "$build/CMakeCache.txt" --python "$PYTHON"
cmake --build "$build" -j "${CPU_COUNT:-2}" --target torch_python_all
cmake --install "$build" --component python --prefix "$PREFIX"

# The python component installs into <prefix>/lib/pythonX.Y/site-packages.
if [[ ! -f "$SP_DIR/torch/__init__.py" ]]; then
  echo "build_pytorch.sh: torch was not installed into SP_DIR=$SP_DIR" >&2
  exit 1
fi
