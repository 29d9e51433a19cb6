#!/usr/bin/env bash
# Proves that the stage graph is the one ARCHITECTURE.md documents:
#   1. the stages each stage includes (src/<stage>/*.{hpp,cpp})
#   2. the stages src/CMakeLists.txt links it to (PUBLIC: its headers include
#      them; PRIVATE: only its sources do)
#   3. the graph block of src/ARCHITECTURE.md
# must be one and the same. (The build itself refuses an include of a stage
# that is not linked: each stage's include root holds only its own folder.)
# Prints each difference and exits 1 on any; run by CTest as "layers".
set -euo pipefail
src=${1:-"$(dirname "$0")/../src"}
cd "$src"
fail=0

stages=$(find . -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)

# Stages named by `#include "stage/..."` in the given files, minus `self`.
included() {
  local self=$1; shift
  cat "$@" /dev/null | awk -v self="$self" '
    match($0, /^#include "[a-z_]+\//) { s = substr($0, 11, RLENGTH - 11); if (s != self) print s }' |
    sort -u | tr '\n' ' ' | sed 's/ $//'
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

sorted() { tr ' ' '\n' | awk 'NF' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

for s in $stages; do
  shopt -s nullglob
  hpp=("$s"/*.hpp); cpp=("$s"/*.cpp)
  shopt -u nullglob
  h=$(included "$s" "${hpp[@]}")
  all=$(included "$s" "${hpp[@]}" "${cpp[@]}")
  c=$(comm -23 <(tr ' ' '\n' <<<"$all" | awk 'NF') <(tr ' ' '\n' <<<"$h" | awk 'NF') | sorted)
  line=$(grep "^$s|" <<<"$declared" || true)
  if [[ -z $line ]]; then
    echo "layers: src/$s/ has no sf_stage($s ...) in src/CMakeLists.txt"; fail=1; continue
  fi
  pub=$(cut -d'|' -f2 <<<"$line" | sorted)
  priv=$(cut -d'|' -f3 <<<"$line" | sorted)
  if [[ $h != "$pub" ]]; then
    echo "layers: $s: headers include [$h] but CMakeLists.txt links PUBLIC [$pub]"; fail=1
  fi
  if [[ $c != "$priv" ]]; then
    echo "layers: $s: only sources include [$c] but CMakeLists.txt links PRIVATE [$priv]"; fail=1
  fi
  doc=$(grep -E "^$s:" <<<"$documented" | cut -d: -f2 | sorted || true)
  if ! grep -qE "^$s:" <<<"$documented"; then
    echo "layers: $s is missing from the graph in ARCHITECTURE.md"; fail=1
  elif [[ $doc != "$all" ]]; then
    echo "layers: $s: ARCHITECTURE.md says [$doc] but the code includes [$all]"; fail=1
  fi
done
while IFS=: read -r d _; do
  [[ -d $d ]] || { echo "layers: ARCHITECTURE.md names $d, which is not a folder of src/"; fail=1; }
done <<<"$documented"
main=$(included main main.cpp)
if [[ $main != "cli core" ]]; then
  echo "layers: main.cpp includes [$main]; it may include only cli and core"; fail=1
fi
# Folder names that tools and people take for build output or tests.
for bad in build builds out spec specs test tests tmp; do
  if find . ../tests -mindepth 1 -type d -name "$bad" | grep -q .; then
    echo "layers: a source folder is named '$bad': $(find . ../tests -mindepth 1 -type d -name "$bad" | head -1)"; fail=1
  fi
done
((fail == 0)) && echo "layers: $(wc -w <<<"$stages") stages, graph as documented"
exit $fail
