#!/usr/bin/env bash
# A rerender corpus (../shared/rerender-real layout) through its checker
# with the splitforge binary; SKIPPED (exit 77) when the corpus is absent.
#   rerender_corpus.sh CORPUS_DIR CHECK_SH SPLITFORGE [FLAG...]
set -euo pipefail
corpus=$1 check=$2 bin=$3
shift 3
if [[ ! -d "$corpus/cases" || ! -f "$check" ]]; then
  echo "SKIPPED: $corpus or $check is absent"
  exit 77
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RERENDER="bash $here/scripts/rerender-real.sh $bin $*" CORPUS="$corpus" VERBOSE=1 exec bash "$check"
