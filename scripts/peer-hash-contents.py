#!/usr/bin/env python3
# peer-hash-contents.py: what the reference conda-build puts into each package's hash.
#
# Run with the peer's python (source /tmp/peer/activate.sh; see ../shared/peer/README.md):
#   python scripts/peer-hash-contents.py RECIPE_DIR [-m VARIANTS.yaml]... [-e PINNING.yaml]...
#          [--json FILE]
#
# Renders RECIPE_DIR for linux-64 the way conda-smithy does
# (conda_build.api.render(..., finalize=False, bypass_env_check=True)) and writes, as JSON,
# one entry per rendered conda package:
#   {"name", "version", "build", "hash_contents": m.get_hash_contents()}
# sorted by name, then build (then version, then content); exact duplicates dropped.  Outputs that
# conda-build marks skip() and non-conda outputs are left out, as in render_nofinal.py.
# Used by scripts/peer-golden.sh; never a dependency of splitforge itself.
import argparse
import json
import sys


def main(argv=None):
    p = argparse.ArgumentParser(prog="peer-hash-contents.py")
    p.add_argument("recipe")
    p.add_argument("-m", "--variant-config-files", action="append", default=[])
    p.add_argument("-e", "--exclusive-config-files", action="append", default=[])
    p.add_argument("--json", dest="json_out", default=None)
    args = p.parse_args(argv)

    from conda_build import api
    from conda_build.config import Config

    config = Config(
        variant_config_files=args.variant_config_files,
        exclusive_config_files=args.exclusive_config_files,
        platform="linux",
        arch="64",
        verbose=False,
        debug=False,
    )
    metadata_tuples = api.render(
        args.recipe,
        config=config,
        no_download_source=True,
        finalize=False,
        bypass_env_check=True,
    )

    seen = set()
    entries = []
    for m, _, _ in metadata_tuples:
        mtype = getattr(m, "type", None)
        if isinstance(mtype, str) and not mtype.startswith("conda"):
            continue
        if m.skip():
            continue
        entry = {
            "name": m.name(),
            "version": str(m.version()),
            "build": m.build_id(),
            "hash_contents": {k: v for k, v in m.get_hash_contents().items()},
        }
        key = json.dumps(entry, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        entries.append(entry)
    # Packages that share name, version and build (e.g. a noarch output rendered once per
    # python) are ordered by their whole content, so the file does not depend on render order.
    entries.sort(
        key=lambda e: (e["name"], e["build"], e["version"], json.dumps(e, sort_keys=True))
    )

    text = json.dumps(entries, indent=1, sort_keys=True) + "\n"
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
