#!/usr/bin/env bash
# Proves that the stage graph is the one ARCHITECTURE.md documents, and that
# it runs down the pipeline:
#   1. the stages each stage includes (src/<stage>/*.{hpp,cpp}: every
#      `#include "stage/..."` or `# include <stage/...>`)
#   2. the stages src/CMakeLists.txt links it to (PUBLIC: its headers include
#      them; PRIVATE: only its sources do)
#   3. the ```layers block of src/ARCHITECTURE.md
# must be one and the same graph, and each edge of any of the three must
# point down the ```pipeline block of ARCHITECTURE.md (the stages, bottom to
# top): a stage uses only stages below it, so an edge to a stage at or above
# it fails even when all three agree on it. This check is what enforces the
# graph: the build does not, since a PUBLIC link makes the headers of the
# linked stage's own PUBLIC stages reachable too.
# Prints each problem and exits 1 on any; run by CTest as "layers: include
# graph", and on the fixture trees of tests/data/layers/.
# Usage: scripts/check-layers.sh [SRC_DIR]
set -euo pipefail
src=${1:-"$(dirname "$0")/../src"}
cd "$src"
fail=0
bad() { echo "layers: $*"; fail=1; }
# has "a b c" b: the space-separated list holds the word.
has() { [[ " $1 " == *" $2 "* ]]; }
sorted() { tr ' ' '\n' | awk 'NF' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

stages=$(find . -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)

# Every include of another stage's header, one per line:
# "stage|included stage|file:line|h or c|header". main.cpp counts as stage
# "main"; folders that are not stages (<fmt/...>) are left out.
shopt -s nullglob
files=(*/*.hpp */*.cpp main.cpp)
shopt -u nullglob
includes=$(awk -v stages="$stages" '
  BEGIN { n = split(stages, a, /[ \n]+/); for (i = 1; i <= n; i++) if (a[i] != "") st[a[i]] = 1 }
  match($0, /^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][a-z0-9_]+\//) {
    d = substr($0, RSTART, RLENGTH); sub(/^.*[<"]/, "", d); sub(/\/$/, "", d)
    hdr = $0; sub(/^[^<"]*[<"]/, "", hdr); sub(/[>"].*$/, "", hdr)
    s = FILENAME; if (s !~ /\//) s = "main"; else sub(/\/.*/, "", s)
    if ((d in st) && d != s) print s "|" d "|" FILENAME ":" FNR "|" (FILENAME ~ /\.hpp$/ ? "h" : "c") "|" hdr
  }' /dev/null "${files[@]}")

# included STAGE h|all: the stages its headers (h) or all its files include.
included() {
  awk -F'|' -v s="$1" -v k="$2" '$1 == s && (k == "all" || $4 == k) { print $2 }' <<<"$includes" | sorted
}
# first_include STAGE DEP: "file:line includes header" of its first such include.
first_include() {
  awk -F'|' -v s="$1" -v d="$2" '$1 == s && $2 == d { print $3 " includes " $5; exit }' <<<"$includes"
}

# sf_stage(NAME PUBLIC ... PRIVATE ...) calls, one per line: "NAME|pub|priv"
# with only sf_* targets kept.
declared=$(awk '
  /^sf_stage\(/ { buf = ""; open = 1 }
  open { buf = buf " " $0 }
  open && /\)/ { open = 0; gsub(/[()]/, " ", buf); n = split(buf, w, /[ \t]+/)
    name = ""; mode = ""; pub = ""; priv = ""
    for (i = 1; i <= n; i++) {
      if (w[i] == "" || w[i] == "sf_stage") continue
      if (name == "") { name = w[i]; continue }
      if (w[i] == "PUBLIC" || w[i] == "PRIVATE") { mode = w[i]; continue }
      if (w[i] !~ /^sf_/) continue
      s = substr(w[i], 4)
      if (mode == "PUBLIC") pub = pub " " s; else priv = priv " " s
    }
    print name "|" pub "|" priv }' CMakeLists.txt)

# The ```layers block of ARCHITECTURE.md: "stage: dep dep ...".
documented=$(awk '/^```layers/ { on = 1; next } /^```/ { on = 0 } on' ARCHITECTURE.md)

# The ```pipeline block of ARCHITECTURE.md: every stage once, bottom to top.
pipeline=$(awk '/^```pipeline/ { on = 1; next } /^```/ { on = 0 } on' ARCHITECTURE.md | tr -s '[:space:]' ' ' | sed 's/^ //; s/ $//')
declare -A rank=()
i=0
[[ -n $pipeline ]] || bad "ARCHITECTURE.md has no \`\`\`pipeline block (the stages, bottom to top)"
for p in $pipeline; do
  [[ -z ${rank[$p]:-} ]] || bad "the pipeline in ARCHITECTURE.md names $p twice"
  [[ -d $p ]] || bad "the pipeline in ARCHITECTURE.md names $p, which is not a folder of src/"
  rank[$p]=$((i++))
done

for s in $stages; do
  h=$(included "$s" h)
  all=$(included "$s" all)
  c=$(comm -23 <(tr ' ' '\n' <<<"$all" | awk 'NF') <(tr ' ' '\n' <<<"$h" | awk 'NF') | sorted)
  [[ -z $pipeline || -n ${rank[$s]:-} ]] || bad "$s is missing from the pipeline in ARCHITECTURE.md"

  # 1 = 2: includes and links.
  line=$(grep "^$s|" <<<"$declared" || true)
  pub='' priv=''
  if [[ -z $line ]]; then
    bad "src/$s/ has no sf_stage($s ...) in src/CMakeLists.txt"
  else
    pub=$(cut -d'|' -f2 <<<"$line" | sorted)
    priv=$(cut -d'|' -f3 <<<"$line" | sorted)
    [[ $h == "$pub" ]] || bad "$s: headers include [$h] but CMakeLists.txt links PUBLIC [$pub]"
    [[ $c == "$priv" ]] || bad "$s: only sources include [$c] but CMakeLists.txt links PRIVATE [$priv]"
  fi

  # 1 = 3: includes and the documented graph, each edge either way.
  doc=''
  if ! grep -qE "^$s:" <<<"$documented"; then
    bad "$s is missing from the graph in ARCHITECTURE.md"
  else
    doc=$(grep -E "^$s:" <<<"$documented" | cut -d: -f2 | sorted)
    for d in $all; do
      has "$doc" "$d" || bad "$(first_include "$s" "$d"), but the graph in ARCHITECTURE.md gives $s only [$doc]"
    done
    for d in $doc; do
      has "$all" "$d" || bad "$s: the graph in ARCHITECTURE.md gives it $d, which no file of src/$s/ includes"
    done
  fi

  # Down the pipeline: every edge any of the three names.
  [[ -n ${rank[$s]:-} ]] || continue
  for d in $(sorted <<<"$all $pub $priv $doc"); do
    [[ -n ${rank[$d]:-} ]] || continue
    ((rank[$d] < rank[$s])) && continue
    from=''
    has "$all" "$d" && from+="; $(first_include "$s" "$d")"
    has "$pub $priv" "$d" && from+="; linked in CMakeLists.txt"
    has "$doc" "$d" && from+="; documented in ARCHITECTURE.md"
    bad "$s uses $d (${from#; }), but $d is not below $s in the pipeline; a stage may use only the stages below it"
  done
done
while IFS=: read -r d _; do
  [[ -z $d || -d $d ]] || bad "ARCHITECTURE.md names $d, which is not a folder of src/"
done <<<"$documented"
main=$(included main all)
[[ $main == "cli core" ]] || bad "main.cpp includes [$main]; it may include only cli and core"
# Folder names that tools and people take for build output or tests.
roots=(.)
[[ -d ../tests ]] && roots+=(../tests)
for name in build builds out spec specs test tests tmp; do
  found=$(find "${roots[@]}" -mindepth 1 -type d -name "$name" | head -1)
  [[ -z $found ]] || bad "a source folder is named '$name': $found"
done
((fail == 0)) && echo "layers: $(wc -w <<<"$stages") stages, graph as documented, all down the pipeline"
exit $fail
