#!/bin/bash
# The sysroot's layout with one real file in it: the host's gnu/stubs-64.h
# (its glibc's ABI marker), so the package is not empty and a test can look.
set -euo pipefail
root=$PREFIX/x86_64-conda-linux-gnu/sysroot
mkdir -p "$root/usr/include/gnu"
for d in /usr/include/x86_64-linux-gnu /usr/include; do
  if [[ -f $d/gnu/stubs-64.h ]]; then cp "$d/gnu/stubs-64.h" "$root/usr/include/gnu/"; exit 0; fi
done
echo "install-sysroot.sh: the host has no gnu/stubs-64.h (install libc6-dev)" >&2
exit 1
