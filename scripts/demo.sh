#!/usr/bin/env bash
# The embedded demo, end to end, through `splitforge build`:
#   1. minimagma and miniblas (the demo's libcblas) into the local channel output/;
#   2. minitorch for every available variant (cpu always; cuda when nvcc is
#      found; mkl when MKL is found) and every Python found (PATH + pyenv);
#   3. the other two kinds of binaries from the same build, nothing
#      recompiled: wheels (`splitforge wheel`) into demo-wheels/<variant>/
#      (a pip index each: cpu/, cu130/) and libtorch
#      archives (`splitforge libtorch-archive`) into demo-libtorch/, both
#      beside OUTPUT_DIR: the four kinds, shared and static (libtorch-static,
#      cpu with the generic BLAS only) each with and without deps;
#   4. `splitforge check` on every package, wheel and archive (the host's
#      exported runtimes, *-0_system, are the host's, not the demo's), one
#      summary line per kind;
#   5. the independent oracle: conda-check --strict --solve "pytorch,libtorch";
#   6. the v1 twin (demo/minitorch/recipe-v1) into OUTPUT_DIR-v1, and the
#      same conda-check on that channel.
# Usage: scripts/demo.sh [OUTPUT_DIR] [extra `splitforge build` args...]
#   e.g. scripts/demo.sh output --variant python=3.12,3.13 --variant cuda_compiler_version=None
# SPLITFORGE=/path/to/splitforge picks the binary (default: the newest build*/src/splitforge).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-build_artifacts/demo-channel}
shift || true
if [[ -z "${SPLITFORGE:-}" ]]; then
  SPLITFORGE=$(ls -t "$root"/build*/src/splitforge 2>/dev/null | head -n1 || true)
fi
[[ -x "${SPLITFORGE:-}" ]] || { echo "demo.sh: no splitforge binary (build it, or set SPLITFORGE)" >&2; exit 1; }
echo "==> using $SPLITFORGE, channel $out" >&2
t0=$(date +%s)
"$SPLITFORGE" build "$root/demo/minimagma/recipe" --output-folder "$out" -q
"$SPLITFORGE" build "$root/demo/miniblas/recipe" --output-folder "$out" -q
"$SPLITFORGE" build "$root/demo/minitorch/recipe" --output-folder "$out" --skip-unavailable -q "$@"
echo "==> built in $(( $(date +%s) - t0 ))s; wheels and libtorch archives" >&2
art=$(dirname "$out")
t1=$(date +%s)
failed=()
# A wheel that cannot be made fails the demo, after the archives and the
# checks have run (their results are worth having either way).
if ! "$SPLITFORGE" wheel "$out" --output-folder "$art/demo-wheels" --json > "$art/demo-wheels.json"; then
  failed+=("wheels")
  echo '{"wheels": []}' > "$art/demo-wheels.json"
fi
shopt -s nullglob
libtorch_pkgs=("$out"/linux-64/libtorch-[0-9]*.conda)
static_pkgs=("$out"/linux-64/libtorch-static-[0-9]*.conda)
kinds=(--kind shared-with-deps --kind shared-without-deps)
if ((${#static_pkgs[@]})); then
  libtorch_pkgs+=("${static_pkgs[@]}")
  kinds+=(--kind static-with-deps --kind static-without-deps)
fi
if ! "$SPLITFORGE" libtorch-archive "${libtorch_pkgs[@]}" "${kinds[@]}" --output-folder "$art/demo-libtorch" --json > "$art/demo-libtorch.json"; then
  failed+=("libtorch archives")
  echo '{"archives": []}' > "$art/demo-libtorch.json"
fi
# One pip index per variant, as PyTorch's whl/cpu/ and whl/cu130/: a wheel's
# local label (+cpu, +cu130, +cpu.mkl) names its folder under demo-wheels/,
# whose simple/ `pip install --index-url` reads. What this run wrote: the
# wheels where they now are, then the archives the second command reports.
mapfile -t written < <(python3 -c 'import json, os, sys
root = sys.argv[3]
for item in json.load(open(sys.argv[1]))["wheels"]:
    name = os.path.basename(item["wheel"])
    version = name.split("-")[1]
    dest = os.path.join(root, version.split("+", 1)[1] if "+" in version else "default")
    os.makedirs(dest, exist_ok=True)
    os.replace(item["wheel"], os.path.join(dest, name))
    print(os.path.join(dest, name))
for item in json.load(open(sys.argv[2]))["archives"]:
    print(item["path"])' "$art/demo-wheels.json" "$art/demo-libtorch.json" "$art/demo-wheels")
for d in "$art"/demo-wheels/*/; do
  "$SPLITFORGE" index "$d" > /dev/null || failed+=("the pip index of $d")
done
echo "==> ${#written[@]} wheel(s) and archive(s) in $(( $(date +%s) - t1 ))s; splitforge check" >&2
packages=()
for p in "$out"/*/*.conda "$out"/*/*.tar.bz2; do
  [[ $p == *-0_system.* ]] || packages+=("$p")
done
# --consumer: the archives are the ones this run just made, so building and
# running the consumer program against them (their CMake code) is safe.
# -c: where the without-deps archives' run dependencies come from.
"$SPLITFORGE" check --consumer -c "$out" "${packages[@]}" "${written[@]}" || failed+=("splitforge check")
echo "==> checking the channel with conda-check" >&2
SF_BUILD_DIR=$(basename "$(dirname "$(dirname "$SPLITFORGE")")") \
  bash "$root/scripts/conda-check.sh" "$out" --strict --solve "pytorch,libtorch"
# The v1 twin (demo/minitorch/recipe-v1, recipe.yaml with a staging output)
# into its own channel beside OUTPUT_DIR, judged by the same oracle.
out_v1="${out%/}-v1"
echo "==> the v1 twin (recipe.yaml) into $out_v1" >&2
# Its own copies of the dependency recipes the v0 build had (miniblas, the
# demo's libcblas, where this tree has it).
v1_ok=1
for dep in minimagma miniblas; do
  [[ -d $root/demo/$dep/recipe ]] || continue
  "$SPLITFORGE" build "$root/demo/$dep/recipe" --output-folder "$out_v1" -q || v1_ok=0
done
if [[ $v1_ok == 1 ]] &&
   "$SPLITFORGE" build "$root/demo/minitorch/recipe-v1" --output-folder "$out_v1" --skip-unavailable -q "$@"; then
  SF_BUILD_DIR=$(basename "$(dirname "$(dirname "$SPLITFORGE")")") \
    bash "$root/scripts/conda-check.sh" "$out_v1" --strict --solve "pytorch,libtorch" || failed+=("conda-check (v1 twin)")
else
  failed+=("v1 twin build")
fi
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "demo.sh: FAILED: $(IFS=,; echo "${failed[*]}" | sed 's/,/, /g') (see above)" >&2
  exit 1
fi
