set -e
test -f "$PREFIX/share/sfc-lib/lib.txt"   # the host env has the output channel's package
mkdir -p "$PREFIX/bin"
printf '#!/bin/sh\ncat "$(dirname "$0")/../share/sfc-lib/lib.txt"\n' > "$PREFIX/bin/sfc-tool"
chmod +x "$PREFIX/bin/sfc-tool"
