#!/usr/bin/env python3
"""Print one output's test section of a conda-build recipe as JSON
(developer aid for run-by-hand.sh; needs jinja2 and PyYAML).

  recipe_tests.py META_YAML OUTPUT_NAME KEY=VALUE...

Selectors (`# [expr]`) are evaluated line by line on the raw text before
Jinja, as conda-build does; compiler()/pin_subpackage() are stubs.
"""
import json
import re
import sys

import jinja2
import yaml

SELECTOR = re.compile(r"^(.*?)\s*#\s*\[(.+)\]\s*$")


def apply_selectors(text, ns):
    out = []
    for line in text.splitlines():
        m = SELECTOR.match(line)
        if m:
            if not eval(m.group(2), {"__builtins__": {}}, ns):  # noqa: S307 (trusted recipe)
                continue
            line = m.group(1)
        out.append(line)
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    meta, output = argv[1], argv[2]
    variant = dict(a.split("=", 1) for a in argv[3:])
    ns = {"linux": True, "linux64": True, "unix": True, "x86_64": True,
          "win": False, "osx": False, "aarch64": False}
    for k, v in variant.items():
        ns[k] = {"true": True, "false": False}.get(v.lower(), v)
    with open(meta, encoding="utf-8") as f:
        text = apply_selectors(f.read(), ns)
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    ctx = dict(ns)
    ctx.update(compiler=lambda lang: lang + "_compiler_stub",
               pin_subpackage=lambda name, **kw: name,
               pin_compatible=lambda name, **kw: name,
               PKG_HASH="0000000", PKG_BUILDNUM="0",
               CONDA_PY=variant.get("CONDA_PY", "312"))
    doc = yaml.safe_load(env.from_string(text).render(**ctx))
    for out in doc.get("outputs", []):
        if out.get("name") == output:
            test = out.get("test") or {}
            json.dump({"imports": test.get("imports", []),
                       "commands": test.get("commands", [])}, sys.stdout)
            print()
            return 0
    sys.stderr.write("recipe_tests.py: no output named %s in %s\n" % (output, meta))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
