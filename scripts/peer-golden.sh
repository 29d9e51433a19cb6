#!/usr/bin/env bash
# peer-golden.sh: regenerate the expected files of the small golden render cases in
# tests/data/render/golden/<case>/ from the reference conda-build (the "peer", see
# ../shared/peer/README.md). Never hand-edit the expected.* files; rerun this instead.
#
#   scripts/peer-golden.sh            # every case
#   scripts/peer-golden.sh CASE...    # only these cases (names or paths)
#
# Per case, from recipe/ (+ variants.yaml as -m, pinning.yaml as -e, env as NAME=VALUE lines):
#   expected.builds.tsv         name<TAB>version<TAB>build, LC_ALL=C sort -u (render_nofinal.py)
#   expected.requirements.json  non-finalized requirements per package (render_requirements.py;
#                               packages that share name/version/build ordered by content)
#   expected.hash.json          m.get_hash_contents() per package (scripts/peer-hash-contents.py)
# All three render for linux-64 without solving: api.render(finalize=False, bypass_env_check=True).
#
# Each render runs in a scrubbed environment (env -i: PATH, HOME, LANG, PYTHONHASHSEED and the
# case's env file) from an empty working directory with an empty HOME, so no
# ~/conda_build_config.yaml, ./conda_build_config.yaml or stray environment variable leaks in
# (selectors see all of os.environ). conda-build picks values from Python sets in places (e.g.
# which value of an unused multi-valued key a render gets), so every case is rendered under two
# hash seeds and rejected when the results differ: a golden must not pin an accident.
#
# Environment: PEER (default /tmp/peer), PEER_TOOLS (default <repo>/../shared/peer, holding
# render_nofinal.py and render_requirements.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
golden=$root/tests/data/render/golden
PEER=${PEER:-/tmp/peer}
PEER_TOOLS=${PEER_TOOLS:-$root/../shared/peer}
hash_helper=$root/scripts/peer-hash-contents.py

die() { echo "peer-golden.sh: $*" >&2; exit 1; }
[[ -f $PEER/activate.sh ]] || die "no peer at $PEER (run ../shared/peer/setup.sh)"
[[ -f $PEER_TOOLS/render_nofinal.py && -f $PEER_TOOLS/render_requirements.py ]] ||
  die "render_nofinal.py / render_requirements.py not found in $PEER_TOOLS"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# An empty channel: noarch/ and linux-64/ with empty repodata.json.
channel=$PEER/empty-channel
if [[ ! -f $channel/noarch/repodata.json || ! -f $channel/linux-64/repodata.json ]]; then
  channel=$scratch/empty-channel
  for sub in noarch linux-64; do
    mkdir -p "$channel/$sub"
    printf '{"info":{"subdir":"%s"},"packages":{},"packages.conda":{},"removed":[],"repodata_version":1}\n' \
      "$sub" >"$channel/$sub/repodata.json"
  done
fi

cases=()
if (($#)); then
  for arg in "$@"; do
    dir=$arg
    [[ -d $dir ]] || dir=$golden/$arg
    [[ -f $dir/recipe/meta.yaml ]] || die "$arg: no recipe/meta.yaml"
    cases+=("$(cd "$dir" && pwd)")
  done
else
  for dir in "$golden"/*/; do
    [[ -f $dir/recipe/meta.yaml ]] && cases+=("${dir%/}")
  done
fi
((${#cases[@]})) || die "no cases under $golden"

# peer SEED CMD...: run CMD with the peer activated, in a scrubbed environment, from an empty
# directory. Extra NAME=VALUE assignments come from the case's env file ($case_env).
peer() {
  local seed=$1 work=$scratch/work home=$scratch/home
  shift
  rm -rf "$work" "$home"
  mkdir -p "$work" "$home"
  # shellcheck disable=SC2016 # $0.. are expanded by the inner shell
  env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" LANG=C.UTF-8 PYTHONHASHSEED="$seed" \
    "${case_env[@]}" \
    bash -c 'source "$0/activate.sh" && cd "$1" && shift 2 && exec "$@"' "$PEER" "$work" -- "$@"
}

# normalize IN OUT: render_requirements.py sorts by (name, version, build) only; order the
# packages that tie by their content too. Writes the same JSON layout (indent 1, sorted keys).
normalize() {
  peer 0 python -c '
import json, sys
entries = json.load(open(sys.argv[1]))
entries.sort(key=lambda e: (e["name"], e["version"], e["build"], json.dumps(e, sort_keys=True)))
open(sys.argv[2], "w").write(json.dumps(entries, indent=1, sort_keys=True) + "\n")' "$1" "$2"
}

# triples JSON: the sorted name<TAB>version<TAB>build lines of a JSON file's packages.
triples() {
  peer 0 python -c '
import json, sys
rows = {"\t".join((e["name"], e["version"], e["build"])) for e in json.load(open(sys.argv[1]))}
sys.stdout.write("".join(r + "\n" for r in rows))' "$1" | LC_ALL=C sort -u
}

failed=0
for case in "${cases[@]}"; do
  name=$(basename "$case")
  args=("$case/recipe")
  [[ -f $case/variants.yaml ]] && args+=(-m "$case/variants.yaml")
  [[ -f $case/pinning.yaml ]] && args+=(-e "$case/pinning.yaml")
  case_env=()
  if [[ -f $case/env ]]; then
    while IFS= read -r line || [[ -n $line ]]; do
      [[ -z $line || $line == \#* ]] && continue
      [[ $line == [A-Za-z_]*=* ]] || die "$name/env: not NAME=VALUE: $line"
      case_env+=("$line")
    done <"$case/env"
  fi
  chan=(--override-channels -c "file://$channel" --no-source)
  log=$scratch/$name.log
  out=$scratch/$name
  mkdir -p "$out"
  if ! (
    for seed in 0 1; do
      peer "$seed" env PEER_HASH_FILE="$out/builds.$seed.tsv" \
        python "$PEER_TOOLS/render_nofinal.py" "${args[@]}" "${chan[@]}" --output &&
        peer "$seed" python "$PEER_TOOLS/render_requirements.py" "${args[@]}" "${chan[@]}" \
          --json "$out/requirements.raw.$seed.json" &&
        normalize "$out/requirements.raw.$seed.json" "$out/requirements.$seed.json" &&
        peer "$seed" python "$hash_helper" "${args[@]}" --json "$out/hash.$seed.json" ||
        exit 1
      touch "$out/builds.$seed.tsv"
      LC_ALL=C sort -u "$out/builds.$seed.tsv" >"$out/builds.$seed.sorted"
    done
  ) >"$log" 2>&1; then
    echo "FAILED $name (peer log follows)" >&2
    tail -n 30 "$log" >&2
    failed=1
    continue
  fi
  for f in builds.sorted requirements.json hash.json; do
    cmp -s "$out/${f%.*}.0.${f##*.}" "$out/${f%.*}.1.${f##*.}" || {
      echo "FAILED $name: ${f%.*} depends on PYTHONHASHSEED (conda-build set order); change the case" >&2
      diff "$out/${f%.*}.0.${f##*.}" "$out/${f%.*}.1.${f##*.}" | head -n 20 >&2 || true
      failed=1
      continue 2
    }
  done
  # The three renders must agree on the set of packages.
  for f in requirements hash; do
    cmp -s "$out/builds.0.sorted" <(triples "$out/$f.0.json") || {
      echo "FAILED $name: $f.json packages differ from builds.tsv" >&2
      failed=1
      continue 2
    }
  done
  cp "$out/builds.0.sorted" "$case/expected.builds.tsv"
  cp "$out/requirements.0.json" "$case/expected.requirements.json"
  cp "$out/hash.0.json" "$case/expected.hash.json"
  echo "ok $name ($(wc -l <"$case/expected.builds.tsv") packages)"
done
exit "$failed"
