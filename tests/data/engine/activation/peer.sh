#!/usr/bin/env bash
# The same case with the reference conda-build (../shared/peer), by hand:
#   PEER=/tmp/peer bash ../shared/peer/setup.sh; source /tmp/peer/activate.sh
#   bash tests/data/engine/activation/peer.sh /tmp/act-peer
# Builds the activation packages into a local channel, then the consumer
# (whose test checks the test prefix's activation), and prints what the
# consumer's build script saw: host,build|<build prefix>|yes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: peer.sh OUTDIR}
mkdir -p "$out"
ch=$out/channel
for r in sf-act-host sf-act-build sf-act-bad sf-act-consumer sf-act-bad-consumer; do
    echo "== $r"
    conda-vfix build "$here/$r" --override-channels -c "file://$ch" --output-folder "$ch" \
        --croot "$out/croot" --no-anaconda-upload >"$out/$r.log" 2>&1 && echo "   built" || echo "   failed (rc $?)"
    grep -a '^seen: ' "$out/$r.log" || true
done
