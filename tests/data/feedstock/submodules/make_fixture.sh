#!/usr/bin/env bash
# Builds the throwaway upstream checkout for the `splitforge submodules`
# tests in $1 (must not exist): a superproject with real submodules and
# tags, all local (no network). Dates, names and config are fixed, so the
# commit hashes -- and the golden tables -- are the same on every machine.
#   third_party/NVTX      tagged commit              -> v3.1.0
#   third_party/sleef     two commits past a tag     -> 3.6+2
#   third_party/FP16      no tag at all              -> short hash
#   third_party/protobuf  one commit past v3.7.0rc2  -> v3.7.0rc2+1
#     third_party/protobuf/third_party/googletest (nested) -> release-1.10.0
#   third_party/unmapped  tagged v0.1, not in the name map
set -euo pipefail
dest=$1
[[ ! -e $dest ]] || { echo "make_fixture.sh: $dest exists" >&2; exit 1; }
export GIT_AUTHOR_NAME=fixture GIT_AUTHOR_EMAIL=fixture@example.invalid
export GIT_COMMITTER_NAME=fixture GIT_COMMITTER_EMAIL=fixture@example.invalid
export GIT_AUTHOR_DATE='2024-11-28T12:00:00+00:00' GIT_COMMITTER_DATE='2024-11-28T12:00:00+00:00'
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
g() { git -c protocol.file.allow=always -c init.defaultBranch=main -c commit.gpgSign=false -c tag.gpgSign=false "$@"; }

mkdir -p "$dest/up"
up=$(cd "$dest/up" && pwd)
repo() {  # repo NAME: an empty repo with one commit
    g init -q "$up/$1"
    echo "$1" > "$up/$1/README"
    g -C "$up/$1" add README
    g -C "$up/$1" commit -q -m "$1: initial"
}
commit() {  # commit NAME MSG
    echo "$2" >> "$up/$1/README"
    g -C "$up/$1" commit -q -am "$1: $2"
}

repo NVTX;       g -C "$up/NVTX" tag -a v3.1.0 -m "NVTX 3.1.0"
repo sleef;      g -C "$up/sleef" tag 3.6; commit sleef "fix one"; commit sleef "fix two"
repo FP16;       commit FP16 "more"
repo googletest; g -C "$up/googletest" tag release-1.10.0
repo protobuf;   g -C "$up/protobuf" tag -a v3.7.0rc2 -m "protobuf 3.7.0rc2"
g -C "$up/protobuf" submodule add -q "$up/googletest" third_party/googletest
g -C "$up/protobuf" commit -q -m "protobuf: add googletest"
repo unmapped;   g -C "$up/unmapped" tag v0.1

g init -q "$dest/pytorch"
top=$dest/pytorch
echo pytorch > "$top/README"
g -C "$top" add README
for s in NVTX sleef FP16 protobuf unmapped; do
    g -C "$top" submodule add -q "$up/$s" "third_party/$s"
done
g -C "$top" submodule update -q --init --recursive
g -C "$top" commit -q -m "pytorch: vendor dependencies"
