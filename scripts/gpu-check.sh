#!/usr/bin/env bash
# The demo's binaries on a machine with a GPU, as PyTorch tests its binaries:
#   1. each CUDA conda flavour (magma, fallback) installed by splitforge's own
#      installer into a fresh prefix, then the smoke test;
#   2. each CUDA wheel (this Python's tag) into a fresh venv
#      (pip install --no-index), then the same smoke test;
#   3. each CUDA libtorch archive unzipped, the consumer program
#      (demo/libtorch-consumer) built against it with cmake and run with
#      LD_LIBRARY_PATH unset.
# Self-contained: no network, no patchelf; needs nvcc's driver (a GPU),
# cmake, ninja or make, g++ and python3.12 (the wheels' Python; PYTHON=...
# picks another).
#
# Usage: scripts/gpu-check.sh ARTIFACTS_DIR
#   ARTIFACTS_DIR: what `./build-locally.sh --demo` wrote (build_artifacts/),
#   holding demo-channel/, demo-wheels/<variant>/ and demo-libtorch/.
# SPLITFORGE=/path/to/splitforge picks the binary (default: the newest
# build*/src/splitforge of this checkout, or ARTIFACTS_DIR/splitforge).
# GPU_CHECK_EXPECT_GPU=no runs the same steps expecting no GPU (the smoke
# test then wants the "unavailable" reason): a rehearsal of the script on a
# CPU machine, said so in its output; it proves nothing about a GPU.
# Exit 0: every check passed; 1: one failed, or this machine cannot run them
# (no GPU, no artifacts): the reason is printed, never a silent pass.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "gpu-check: FAILED: $*" >&2; exit 1; }
[[ $# -eq 1 ]] || die "usage: scripts/gpu-check.sh ARTIFACTS_DIR (build_artifacts/ of ./build-locally.sh --demo)"
art=$(cd "$1" 2>/dev/null && pwd) || die "$1: no such directory"
# The wheels' Python: $PYTHON, else python3.12 (what the demo's wheels are
# built for first), else python3.
python=${PYTHON:-python3}
[[ -z ${PYTHON:-} ]] && python3.12 -c '' 2>/dev/null && python=python3.12
expect=${GPU_CHECK_EXPECT_GPU:-yes}
[[ $expect == yes || $expect == no ]] || die "GPU_CHECK_EXPECT_GPU must be yes or no, not '$expect'"

# ---- what this machine and the artifacts must offer -------------------------
problems=()
if [[ $expect == no ]]; then
  echo "gpu-check: GPU_CHECK_EXPECT_GPU=no: a rehearsal expecting no GPU, not a GPU check" >&2
elif [[ ! -e /dev/nvidia0 ]] && ! compgen -G "/proc/driver/nvidia/gpus/*" >/dev/null; then
  problems+=("no GPU on this machine (no /dev/nvidia0, no /proc/driver/nvidia/gpus/*): run it where one is")
fi
for tool in cmake g++ "$python"; do
  command -v "$tool" >/dev/null || problems+=("$tool not found on PATH")
done
if [[ -z "${SPLITFORGE:-}" ]]; then
  SPLITFORGE=$(ls -t "$root"/build*/src/splitforge "$art"/splitforge 2>/dev/null | head -n1 || true)
fi
[[ -x "${SPLITFORGE:-}" ]] || problems+=("no splitforge binary (build it, or set SPLITFORGE)")
shopt -s nullglob
conda_pkgs=("$art"/demo-channel/linux-64/pytorch-gpu-*.conda)
wheels=("$art"/demo-wheels/*/*.whl)
archives=("$art"/demo-libtorch/*+cu[0-9]*.zip)
[[ ${#conda_pkgs[@]} -gt 0 ]] || problems+=("no CUDA conda packages: $art/demo-channel/linux-64/pytorch-gpu-*.conda")
[[ ${#wheels[@]} -gt 0 ]] || problems+=("no wheels: $art/demo-wheels/*/*.whl")
[[ ${#archives[@]} -gt 0 ]] || problems+=("no CUDA libtorch archives: $art/demo-libtorch/*+cu[0-9]*.zip")
if [[ ${#problems[@]} -gt 0 ]]; then
  for p in "${problems[@]}"; do echo "gpu-check: $p" >&2; done
  die "${#problems[@]} precondition(s) not met; nothing was checked"
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L

work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
smoke="$root/demo/minitorch/recipe/smoke_test.py"
failed=0 passed=0
result() {  # result NAME STATUS
  if [[ $2 -eq 0 ]]; then passed=$((passed + 1)); echo "PASS $1"; else failed=$((failed + 1)); echo "FAIL $1"; fi
}

# ---- 1. conda packages: one fresh prefix per linalg flavour -----------------
for flavour in magma nomagma; do
  prefix="$work/conda-$flavour"
  want=$([[ $flavour == magma ]] && echo magma || echo fallback)
  ( "$SPLITFORGE" install -q -p "$prefix" --pkgs-dir "$work/pkgs" -c "$art/demo-channel" \
        pytorch-gpu "libtorch-cuda-linalg=*=*_${flavour}_*" &&
    cd "$work" && env -u LD_LIBRARY_PATH "$prefix/bin/python" "$smoke" --expect-gpu "$expect" --linalg "$want" )
  result "conda pytorch-gpu + libtorch-cuda-linalg ($flavour)" $?
done

# ---- 2. wheels: a fresh venv each; at least one must have CUDA ---------------
tag=$("$python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
cuda_wheels=0
for whl in "${wheels[@]}"; do
  [[ $(basename "$whl") == *-"$tag"-* ]] || continue
  venv="$work/venv-$(basename "$whl" .whl)"
  ( "$python" -m venv "$venv" && "$venv/bin/python" -m pip install -q --no-index --no-deps "$whl" ) ||
    { result "wheel $(basename "$whl"): install" 1; continue; }
  built=$(cd "$work" && env -u LD_LIBRARY_PATH "$venv/bin/python" -c 'import torch; print(int(torch.cuda.is_built()))')
  [[ $built == 1 ]] && cuda_wheels=$((cuda_wheels + 1))
  ( cd "$work" && env -u LD_LIBRARY_PATH "$venv/bin/python" "$smoke" --expect-gpu "$([[ $built == 1 ]] && echo "$expect" || echo no)" )
  result "wheel $(basename "$whl") (cuda built: ${built:-?})" $?
done
[[ $cuda_wheels -gt 0 ]] || result "a CUDA wheel for $tag in $art/demo-wheels" 1

# ---- 3. libtorch archives: the consumer program, LD_LIBRARY_PATH unset --------
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
for zip in "${archives[@]}"; do
  dir="$work/$(basename "$zip" .zip)"
  ( "$python" -m zipfile -e "$zip" "$dir" &&
    env -u LD_LIBRARY_PATH cmake "${gen[@]}" -S "$root/demo/libtorch-consumer" -B "$dir/build" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$dir/libtorch" >/dev/null &&
    env -u LD_LIBRARY_PATH cmake --build "$dir/build" >/dev/null &&
    env -u LD_LIBRARY_PATH "$dir/build/libtorch_consumer" $([[ $expect == yes ]] && echo --expect-gpu) )
  result "libtorch consumer against $(basename "$zip")" $?
done

echo "gpu-check: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
