#!/usr/bin/env python3
"""Stand-in for `splitforge cmake-cache {set,retarget-python}` so that
run-by-hand.sh works before the splitforge binary is built. Developer aid
only: the product is `splitforge cmake-cache`.

  cmake_cache_shim.py cmake-cache set FILE KEY:TYPE=VALUE...
  cmake_cache_shim.py cmake-cache retarget-python FILE --python PATH
"""
import os
import re
import sys

ENTRY = re.compile(r"^([^#/\s][^:=]*):([A-Z]+)=(.*)$")


def edit(path, change):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = change(lines)
    tmp = path + ".tmp-shim"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    os.replace(tmp, path)


def set_entries(path, items):
    wanted = {}
    for item in items:
        key, rest = item.split(":", 1)
        typ, value = rest.split("=", 1)
        wanted[key] = (typ, value)

    def change(lines):
        seen = set()
        out = []
        for line in lines:
            m = ENTRY.match(line)
            if m and m.group(1) in wanted:
                typ, value = wanted[m.group(1)]
                line = "%s:%s=%s" % (m.group(1), typ, value)
                seen.add(m.group(1))
            out.append(line)
        for key, (typ, value) in wanted.items():
            if key not in seen:
                out.insert(len(out) - 1 if out and out[-1] == "" else len(out),
                           "%s:%s=%s" % (key, typ, value))
        return out

    edit(path, change)


def retarget_python(path, python):
    # Set the executable and drop what FindPython derived from the old one.
    def change(lines):
        out = []
        for line in lines:
            m = ENTRY.match(line)
            if m:
                key = m.group(1)
                if key == "Python_EXECUTABLE":
                    line = "Python_EXECUTABLE:FILEPATH=%s" % python
                elif key.startswith("_Python_") or key == "FIND_PACKAGE_MESSAGE_DETAILS_Python":
                    if out and out[-1].startswith("//"):
                        out.pop()
                    continue
            out.append(line)
        return out

    edit(path, change)


def main(argv):
    if len(argv) >= 4 and argv[1] == "cmake-cache" and argv[2] == "set":
        set_entries(argv[3], argv[4:])
        return 0
    if len(argv) == 6 and argv[1:3] == ["cmake-cache", "retarget-python"] and argv[4] == "--python":
        retarget_python(argv[3], argv[5])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
