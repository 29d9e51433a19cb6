#!/bin/bash
# One script for every stage, as pytorch-cpu-feedstock's v1 port has it:
# recipe.yaml sets PYTORCH_BUILD_STAGE per output. Each stage runs the v0
# recipe's script for that step, so both recipes build the same files.
set -euo pipefail
v0="$RECIPE_DIR/../recipe"
case "${PYTORCH_BUILD_STAGE:?PYTORCH_BUILD_STAGE is set by recipe.yaml}" in
  build) exec bash "$v0/build.sh" ;;
  libtorch) exec bash "$v0/build_libtorch.sh" ;;
  libtorch-static) exec bash "$v0/build_libtorch_static.sh" ;;
  linalg) exec bash "$v0/build_linalg.sh" ;;
  pytorch) exec bash "$v0/build_pytorch.sh" ;;
  *)
    echo "build.sh: unknown PYTORCH_BUILD_STAGE '$PYTORCH_BUILD_STAGE'" >&2
    exit 1
    ;;
esac
