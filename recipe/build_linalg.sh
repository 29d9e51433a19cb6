#!/bin/bash
# libtorch-cuda-linalg: ship the flavour the staging build stashed.
set -euxo pipefail
flavour=nomagma
[[ "${with_magma}" == "true" ]] && flavour=magma
install -D -m 0755 "stash/${flavour}/libtorch_cuda_linalg.so" "${PREFIX}/lib/libtorch_cuda_linalg.so"
