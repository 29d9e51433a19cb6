#!/usr/bin/env bash
# run-by-hand.sh: a DEVELOPER AID, not the product. It plays the part of
# `splitforge build` for the demo feedstock, by hand, so that the recipe's
# scripts can be checked without the engine:
#
#   1. minimagma: build.sh, collect its files, run its tests;
#   2. minitorch staging build (libtorch-split/build.sh), once;
#   3. each output's script in order: libtorch-cuda-linalg (magma, nomagma;
#      CUDA only), libtorch, then pytorch for each Python; each output's test
#      commands (read from meta.yaml) in a fresh test prefix;
#   4. the megabuild checks, from build/.ninja_log: after the staging build,
#      each per-Python build recompiles no non-Python object, and the magma
#      flip recompiles only libtorch_cuda_linalg objects.
#
# It follows conda-build's conventions: one host prefix path ($WORK/host),
# emptied and refilled with the output's host dependencies before each step;
# an output's files are the files its script added there. Python
# requirements become venvs made from interpreters found at run time (PATH,
# then pyenv). The scripts get exactly the environment the engine promises
# (env -i + the documented variables).
#
# Usage: demo/run-by-hand.sh [--pythons "3.12 3.13"] [--cuda auto|on|off]
#                            [--blas generic|mkl] [--work DIR] [--keep]
# SPLITFORGE=/path/to/splitforge selects the cmake-cache editor; without it,
# a built build*/src/splitforge is used when it has `cmake-cache`, else
# tools/cmake_cache_shim.py.
set -euo pipefail

DEMO=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$DEMO/.." && pwd)
PYTHONS_WANTED=""
CUDA_MODE=auto
BLAS_IMPL=generic
WORK=""
KEEP=no

while [[ $# -gt 0 ]]; do
  case "$1" in
    --pythons) PYTHONS_WANTED=$2; shift 2 ;;
    --cuda) CUDA_MODE=$2; shift 2 ;;
    --blas) BLAS_IMPL=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --keep) KEEP=yes; shift ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "run-by-hand.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

if [[ -z "$WORK" ]]; then
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/sf-demo.XXXXXX")
  [[ "$KEEP" == yes ]] || trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
CPU_COUNT=${CPU_COUNT:-$(nproc 2>/dev/null || echo 2)}
(( CPU_COUNT > 2 )) && CPU_COUNT=2   # shared 2-core machines: stay polite

log() { printf '\n==> %s\n' "$*" >&2; }
die() { printf 'run-by-hand.sh: error: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

SUMMARY=()
note() { SUMMARY+=("$1"); }

# ---- interpreters ------------------------------------------------------------
# Prints the path of a working CPython X.Y with development headers, or nothing.
find_python() {
  local want=$1 cand candidates=()
  cand=$(command -v "python$want" 2>/dev/null || true)
  [[ -n "$cand" ]] && candidates+=("$cand")
  if command -v pyenv >/dev/null 2>&1; then
    local pfx
    pfx=$(pyenv prefix "$want" 2>/dev/null | head -n1 || true)
    [[ -n "$pfx" && -x "$pfx/bin/python$want" ]] && candidates+=("$pfx/bin/python$want")
  fi
  for cand in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$want".*/bin/python"$want"; do
    [[ -x "$cand" ]] && candidates+=("$cand")
  done
  for cand in "${candidates[@]}"; do
    # pyenv shims answer for every version; ask the interpreter itself.
    local real
    real=$("$cand" -c 'import sys, sysconfig, os
v = "%d.%d" % sys.version_info[:2]
inc = sysconfig.get_paths()["include"]
if v == sys.argv[1] and os.path.exists(os.path.join(inc, "Python.h")):
    print(os.path.realpath(sys.executable))' "$want" 2>/dev/null || true)
    if [[ -n "$real" ]]; then
      echo "$real"
      return 0
    fi
  done
  return 0
}

declare -A PY_EXE=()
found=()
for v in 3.12 3.13 3.11 3.10 3.9; do
  exe=$(find_python "$v")
  if [[ -n "$exe" ]]; then
    PY_EXE[$v]=$exe
    found+=("$v")
  fi
done
(( ${#found[@]} > 0 )) || die "no CPython 3.9-3.13 with headers found on PATH or in pyenv"
if [[ -z "$PYTHONS_WANTED" ]]; then
  PYTHONS=("${found[@]:0:2}")
else
  read -r -a PYTHONS <<<"$PYTHONS_WANTED"
  for v in "${PYTHONS[@]}"; do
    [[ -n "${PY_EXE[$v]:-}" ]] || die "python $v requested but not found (searched PATH and pyenv)"
  done
fi
# megabuild: the staging build uses python 3.12 (as meta.yaml says), or the
# first Python found when 3.12 is missing.
STAGE_PY=3.12
[[ -n "${PY_EXE[$STAGE_PY]:-}" ]] || STAGE_PY=${found[0]}
TOOL_PY=${PY_EXE[$STAGE_PY]}

# Any python3 with jinja2 + yaml reads the tests out of meta.yaml.
RECIPE_PY=""
for cand in python3 "${PY_EXE[@]}"; do
  if "$cand" -c 'import jinja2, yaml' >/dev/null 2>&1; then RECIPE_PY=$cand; break; fi
done
[[ -n "$RECIPE_PY" ]] || die "no python3 with jinja2 and PyYAML to read the recipe's tests (pip install jinja2 pyyaml)"

# ---- tools ---------------------------------------------------------------------
# A splitforge whose `cmake-cache set` and `retarget-python` really work
# (--dry-run on a scratch cache; stubs answer --help but do nothing).
cmake_cache_works() {
  local sf=$1 probe=$WORK/probe-cache.txt
  printf 'USE_MAGMA:BOOL=OFF\nPython_EXECUTABLE:FILEPATH=/nonexistent/python\n' >"$probe"
  [[ -x "$sf" ]] &&
    "$sf" cmake-cache set --dry-run "$probe" USE_MAGMA:BOOL=ON 2>/dev/null | grep -q 'USE_MAGMA:BOOL=ON' &&
    "$sf" cmake-cache retarget-python --dry-run "$probe" --python "$TOOL_PY" >/dev/null 2>&1
}
if [[ -n "${SPLITFORGE:-}" ]]; then
  cmake_cache_works "$SPLITFORGE" || die "SPLITFORGE=$SPLITFORGE: its cmake-cache set/retarget-python do not work"
else
  for cand in "$REPO"/build*/src/splitforge; do
    if cmake_cache_works "$cand"; then SPLITFORGE=$cand; break; fi
  done
fi
if [[ -z "${SPLITFORGE:-}" ]]; then
  SPLITFORGE="$WORK/splitforge-shim"
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$TOOL_PY" "$DEMO/tools/cmake_cache_shim.py" >"$SPLITFORGE"
  chmod +x "$SPLITFORGE"
fi

USE_CUDA=no
NVCC_PATH=$(command -v nvcc 2>/dev/null || true)
[[ -z "$NVCC_PATH" && -n "${CUDA_HOME:-}" && -x "$CUDA_HOME/bin/nvcc" ]] && NVCC_PATH=$CUDA_HOME/bin/nvcc
case "$CUDA_MODE" in
  on) [[ -n "$NVCC_PATH" ]] || die "--cuda on, but no nvcc on PATH or in CUDA_HOME"; USE_CUDA=yes ;;
  auto) [[ -n "$NVCC_PATH" ]] && USE_CUDA=yes ;;
  off) ;;
  *) die "--cuda takes auto, on or off" ;;
esac
CUDA_VERSION=None
CUDA_HOME_DIR=""
if [[ "$USE_CUDA" == yes ]]; then
  CUDA_VERSION=$("$NVCC_PATH" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
  CUDA_HOME_DIR=$(cd "$(dirname "$NVCC_PATH")/.." && pwd)
fi
VARIANT=$([[ "$USE_CUDA" == yes ]] && echo "cuda$CUDA_VERSION" || echo cpu)_$BLAS_IMPL

log "work dir $WORK; pythons ${PYTHONS[*]} (staging $STAGE_PY); variant $VARIANT; cmake-cache: $SPLITFORGE"

HOST=$WORK/host          # the one host prefix path, refilled per step
BUILD_ENV=$WORK/build_env
PKGS=$WORK/pkgs          # one folder per built output: its files
mkdir -p "$BUILD_ENV" "$PKGS"
version=$(sed -n 's/^{% set version = "\(.*\)" %}$/\1/p' "$DEMO/minitorch/recipe/meta.yaml")

# ---- prefixes and packages ------------------------------------------------------
# fresh_prefix DIR [PYVER]: an empty prefix, or a venv of that Python at DIR.
fresh_prefix() {
  rm -rf "$1"
  if [[ -n "${2:-}" ]]; then
    "${PY_EXE[$2]}" -m venv --without-pip "$1"
  else
    mkdir -p "$1"
  fi
}

# install_pkg PREFIX NAME...: copy packages' files into a prefix.
install_pkg() {
  local prefix=$1; shift
  for p in "$@"; do
    [[ -d "$PKGS/$p" ]] || die "package $p was not built"
    cp -a "$PKGS/$p/." "$prefix/"
  done
}

file_list() { (cd "$1" && find . \( -type f -o -type l \) | sort); }

# run_script NAME SCRIPT SRC_DIR RECIPE_DIR PYVER [KEY=VALUE...]: runs a
# recipe script with the engine's environment contract in $HOST, then
# collects the new files into $PKGS/NAME.
run_script() {
  local name=$1 script=$2 src=$3 recipe=$4 pyver=$5; shift 5
  local pkgname=${name%%@*}
  local sp_dir="" python="" py_env=()
  if [[ -n "$pyver" ]]; then
    python=$HOST/bin/python
    sp_dir=$HOST/lib/python$pyver/site-packages
    py_env=(PY_VER="$pyver" PYTHON="$python" SP_DIR="$sp_dir")
  fi
  local cuda_env=()
  if [[ "$USE_CUDA" == yes ]]; then
    cuda_env=(CUDA_HOME="$CUDA_HOME_DIR" NVCC="$NVCC_PATH")
  fi
  file_list "$HOST" >"$WORK/before.txt"
  local t0; t0=$(now)
  env -i HOME="$HOME" LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}" \
    PATH="$BUILD_ENV/bin:$HOST/bin:$(dirname "${NVCC_PATH:-/usr/bin/true}"):/usr/local/bin:/usr/bin:/bin" \
    PREFIX="$HOST" BUILD_PREFIX="$BUILD_ENV" SRC_DIR="$src" RECIPE_DIR="$recipe" \
    PKG_NAME="$pkgname" PKG_VERSION="$version" PKG_BUILDNUM=0 \
    CPU_COUNT="$CPU_COUNT" SHLIB_EXT=.so \
    CMAKE_ARGS="-DCMAKE_INSTALL_PREFIX=$HOST -DCMAKE_PREFIX_PATH=$HOST" \
    CC="${CC:-gcc}" CXX="${CXX:-g++}" SPLITFORGE="$SPLITFORGE" \
    target_platform=linux-64 build_platform=linux-64 \
    cuda_compiler_version="$CUDA_VERSION" blas_impl="$BLAS_IMPL" megabuild=true \
    ${py_env[@]+"${py_env[@]}"} ${cuda_env[@]+"${cuda_env[@]}"} "$@" \
    bash -eo pipefail "$script" >"$WORK/log-$name.txt" 2>&1 \
    || { tail -n 40 "$WORK/log-$name.txt" >&2; die "$name: $(basename "$script") failed (log: $WORK/log-$name.txt)"; }
  local secs; secs=$(elapsed "$t0")
  file_list "$HOST" >"$WORK/after.txt"
  rm -rf "${PKGS:?}/$name"; mkdir -p "$PKGS/$name"
  comm -13 "$WORK/before.txt" "$WORK/after.txt" >"$WORK/new-$name.txt"
  (cd "$HOST" && tar -cf - -T "$WORK/new-$name.txt") | tar -C "$PKGS/$name" -xf -
  note "$(printf '%-34s %6ss  %3d files' "$name ($(basename "$script"))" "$secs" "$(wc -l <"$WORK/new-$name.txt")")"
}

# run_tests OUTPUT TESTPREFIX KEY=VALUE...: the output's test section.
run_tests() {
  local output=$1 prefix=$2; shift 2
  local json
  json=$("$RECIPE_PY" "$DEMO/tools/recipe_tests.py" "$DEMO/minitorch/recipe/meta.yaml" "$output" "$@") \
    || die "cannot read the tests of $output"
  local n=0
  while IFS= read -r cmd; do
    [[ -n "$cmd" ]] || continue
    n=$((n + 1))
    env -i HOME="$HOME" LANG=C.UTF-8 PATH="$prefix/bin:/usr/local/bin:/usr/bin:/bin" PREFIX="$prefix" \
      bash -eo pipefail -c "$cmd" >>"$WORK/test-$output.txt" 2>&1 \
      || { tail -n 20 "$WORK/test-$output.txt" >&2; die "$output: test failed: $cmd"; }
  done < <("$TOOL_PY" -c 'import json, sys
t = json.loads(sys.argv[1])
for m in t["imports"]: print("python -c \"import %s\"" % m)
for c in t["commands"]: print(c)' "$json")
  note "$(printf '  test %-29s %3d commands ok' "$output" "$n")"
}

# ninja-log bookkeeping for the megabuild checks.
snap() { "$TOOL_PY" "$DEMO/tools/ninja_log.py" snapshot "$1" >"$2"; }
rebuilt_objects() { "$TOOL_PY" "$DEMO/tools/ninja_log.py" rebuilt "$1" "$2" | grep -E '\.o$' || true; }

FAILED=0
check() {  # check DESCRIPTION COUNT_OF_OFFENDERS
  if [[ "$2" -eq 0 ]]; then note "  CHECK ok:   $1"; else note "  CHECK FAIL: $1 ($2 offenders)"; FAILED=1; fi
}

T_ALL=$(now)

# ---- 1. minimagma ---------------------------------------------------------------------
log "minimagma"
MM_SRC=$WORK/src-minimagma
rm -rf "$MM_SRC"; cp -a "$DEMO/minimagma/src" "$MM_SRC"
fresh_prefix "$HOST"
run_script minimagma "$DEMO/minimagma/recipe/build.sh" "$MM_SRC" "$DEMO/minimagma/recipe" ""
fresh_prefix "$WORK/test"; install_pkg "$WORK/test" minimagma
json=$("$RECIPE_PY" - "$DEMO/minimagma/recipe/meta.yaml" <<'EOF'
import sys, re, yaml, jinja2
text = "\n".join(l for l in open(sys.argv[1]).read().splitlines())
text = re.sub(r"#\s*\[.*\]\s*$", "", text, flags=re.M)
doc = yaml.safe_load(jinja2.Template(text).render(pin_subpackage=lambda n, **k: n, compiler=lambda l: l))
print("\n".join(doc["test"]["commands"]))
EOF
)
while IFS= read -r cmd; do
  env -i PATH="/usr/bin:/bin" PREFIX="$WORK/test" bash -c "$cmd" || die "minimagma: test failed: $cmd"
done <<<"$json"
note "  test minimagma                     ok"

# ---- 2. minitorch staging build ---------------------------------------------------------
log "minitorch: source + patches"
SRC=$WORK/src-minitorch
rm -rf "$SRC"; cp -a "$DEMO/minitorch/src" "$SRC"
for p in "$DEMO"/minitorch/recipe/patches/*.patch; do
  patch -p1 -d "$SRC" --forward --batch <"$p" >/dev/null || die "patch $(basename "$p") does not apply"
done
BUILD=$SRC/build
RECIPE=$DEMO/minitorch/recipe
VKEYS=(cuda_compiler_version="$CUDA_VERSION" blas_impl="$BLAS_IMPL" megabuild=true)

log "minitorch: staging build (libtorch-split, python $STAGE_PY)"
fresh_prefix "$HOST" "$STAGE_PY"
[[ "$USE_CUDA" == yes ]] && install_pkg "$HOST" minimagma
run_script libtorch-split "$RECIPE/build.sh" "$SRC" "$RECIPE" "$STAGE_PY"
echo '{}' >"$WORK/empty.json"
rebuilt_objects "$BUILD" "$WORK/empty.json" >"$WORK/staged.txt"
python_in_staging=$(grep -c '^python/CMakeFiles/' "$WORK/staged.txt" || true)
note "  staging compiled $(wc -l <"$WORK/staged.txt") objects, $python_in_staging of them Python objects"
check "staging build compiles no Python object" "$python_in_staging"

if [[ "$USE_CUDA" == yes ]]; then
  # build.sh built everything, flipped USE_MAGMA and rebuilt linalg: the
  # objects the log records twice are what the flip recompiled.
  "$TOOL_PY" "$DEMO/tools/ninja_log.py" repeated "$BUILD" | grep -E '\.o$' >"$WORK/flip.txt" || true
  linalg=$(grep -c 'torch_cuda_linalg\.dir/' "$WORK/flip.txt" || true)
  non_linalg=$(grep -v -c 'torch_cuda_linalg\.dir/' "$WORK/flip.txt" || true)
  note "  magma flip recompiled $linalg linalg objects, $non_linalg other objects"
  check "magma flip recompiles only libtorch_cuda_linalg objects" "$non_linalg"
  [[ "$linalg" -gt 0 ]] || { note "  CHECK FAIL: the magma flip recompiled nothing"; FAILED=1; }
fi

# ---- 3. outputs -------------------------------------------------------------------------
LINALG_PKGS=()
if [[ "$USE_CUDA" == yes ]]; then
  for wm in true false; do
    flavour=$([[ $wm == true ]] && echo magma || echo nomagma)
    log "libtorch-cuda-linalg ($flavour)"
    fresh_prefix "$HOST"
    [[ $wm == true ]] && install_pkg "$HOST" minimagma
    run_script "libtorch-cuda-linalg@$flavour" "$RECIPE/build_linalg.sh" "$SRC" "$RECIPE" "" with_magma=$wm
    fresh_prefix "$WORK/test"
    install_pkg "$WORK/test" "libtorch-cuda-linalg@$flavour"
    [[ $wm == true ]] && install_pkg "$WORK/test" minimagma
    run_tests libtorch-cuda-linalg "$WORK/test" "${VKEYS[@]}" with_magma=$wm
  done
  # Users get the magma flavour when both fit (higher build number).
  LINALG_PKGS=("libtorch-cuda-linalg@magma" minimagma)
fi

log "libtorch"
fresh_prefix "$HOST" "$STAGE_PY"
install_pkg "$HOST" ${LINALG_PKGS[@]+"${LINALG_PKGS[@]}"}
run_script libtorch "$RECIPE/build_libtorch.sh" "$SRC" "$RECIPE" "$STAGE_PY"
fresh_prefix "$WORK/test"
install_pkg "$WORK/test" libtorch ${LINALG_PKGS[@]+"${LINALG_PKGS[@]}"}
run_tests libtorch "$WORK/test" "${VKEYS[@]}" with_magma=true

for py in "${PYTHONS[@]}"; do
  log "pytorch for python $py"
  fresh_prefix "$HOST" "$py"
  install_pkg "$HOST" libtorch ${LINALG_PKGS[@]+"${LINALG_PKGS[@]}"}
  snap "$BUILD" "$WORK/ninja-before-$py.json"
  run_script "pytorch@py$py" "$RECIPE/build_pytorch.sh" "$SRC" "$RECIPE" "$py"
  rebuilt_objects "$BUILD" "$WORK/ninja-before-$py.json" >"$WORK/rebuilt-$py.txt"
  py_objs=$(grep -c '^python/CMakeFiles/' "$WORK/rebuilt-$py.txt" || true)
  other=$(grep -v -c '^python/CMakeFiles/' "$WORK/rebuilt-$py.txt" || true)
  note "  python $py recompiled $py_objs Python objects, $other other objects"
  check "python $py build recompiles zero non-Python objects" "$other"
  [[ "$py_objs" -gt 0 ]] || { note "  CHECK FAIL: python $py rebuilt no Python object"; FAILED=1; }

  conda_py=${py/./}
  fresh_prefix "$WORK/test" "$py"
  install_pkg "$WORK/test" "pytorch@py$py" libtorch ${LINALG_PKGS[@]+"${LINALG_PKGS[@]}"}
  run_tests pytorch "$WORK/test" "${VKEYS[@]}" with_magma=true CONDA_PY="$conda_py"
  meta=$([[ "$USE_CUDA" == yes ]] && echo pytorch-gpu || echo pytorch-cpu)
  run_tests "$meta" "$WORK/test" "${VKEYS[@]}" with_magma=true CONDA_PY="$conda_py"
  "$WORK/test/bin/python" -c 'import torch; print("   ", torch.__version__, torch.show_config(), "cuda available:", torch.cuda.is_available(), "magma:", torch.has_magma())' >&2
done

printf '\n==== run-by-hand summary (%s, total %ss) ====\n' "$VARIANT" "$(elapsed "$T_ALL")"
printf '%s\n' "${SUMMARY[@]}"
[[ "$KEEP" == yes ]] && printf 'work dir kept: %s\n' "$WORK"
exit "$FAILED"
