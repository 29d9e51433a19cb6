#!/usr/bin/env python3
"""Which outputs did a ninja run rebuild? (developer aid for run-by-hand.sh)

  ninja_log.py snapshot BUILD_DIR > SNAP      record .ninja_log's state
  ninja_log.py rebuilt BUILD_DIR SNAP         print outputs rebuilt since SNAP
  ninja_log.py repeated BUILD_DIR             print outputs built more than once
                                              (as long as ninja has not compacted
                                              the log)

.ninja_log (v5/v6) appends `start end mtime path cmdhash` per built output and
is compacted from time to time, so entries are compared per path on their
mtime and command hash rather than by line position.
"""
import json
import os
import sys


def read_log(build_dir, counts=None):
    latest = {}
    path = os.path.join(build_dir, ".ninja_log")
    if not os.path.exists(path):
        return latest
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5:
                continue
            _, _, mtime, out, cmdhash = parts
            latest[out] = [mtime, cmdhash]
            if counts is not None:
                counts[out] = counts.get(out, 0) + 1
    return latest


def main(argv):
    if len(argv) == 3 and argv[1] == "snapshot":
        json.dump(read_log(argv[2]), sys.stdout)
        return 0
    if len(argv) == 4 and argv[1] == "rebuilt":
        with open(argv[3], encoding="utf-8") as f:
            before = json.load(f)
        for out, state in sorted(read_log(argv[2]).items()):
            if before.get(out) != state:
                print(out)
        return 0
    if len(argv) == 3 and argv[1] == "repeated":
        counts = {}
        read_log(argv[2], counts)
        for out, n in sorted(counts.items()):
            if n > 1:
                print(out)
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
