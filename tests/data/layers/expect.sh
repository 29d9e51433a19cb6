#!/usr/bin/env bash
# Runs scripts/check-layers.sh on one fixture tree of this folder and passes
# when it exits with RC and prints a line matching the extended regex
# MESSAGE (see README.md).
# Usage: expect.sh TREE RC [MESSAGE]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(bash "$here/../../../scripts/check-layers.sh" "$here/$1" 2>&1)
rc=$?
printf '%s\n' "$out"
if [[ $rc != "$2" ]]; then
  echo "expect: check-layers.sh exited $rc on $1, not $2"; exit 1
fi
if [[ -n ${3:-} ]] && ! grep -qE -- "$3" <<<"$out"; then
  echo "expect: no line of check-layers.sh's output on $1 matches /$3/"; exit 1
fi
echo "expect: $1: exit $2${3:+ and /$3/}, as expected"
