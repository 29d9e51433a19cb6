"""Runs cases.json through the reference conda-build's get_package_variants.

  python peer_table.py cases.json            compare with each case's expect
  python peer_table.py cases.json --record   write conda-build's answers in

Run it under ../shared/peer's activate.sh; without conda-build it prints
SKIPPED and exits 77.
"""
import json
import os
import sys
import tempfile

try:
    from conda_build.config import Config
    from conda_build.variants import get_package_variants
except ImportError:
    print("SKIPPED: conda-build is not importable (source ../shared/peer's activate.sh)")
    sys.exit(77)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run_case(case, root):
    write(f"{root}/recipe/meta.yaml", "package:\n  name: x\n  version: 1\n")
    if "recipe" in case:
        write(f"{root}/recipe/conda_build_config.yaml", case["recipe"])
    e_files = [f"{root}/e{i}/conda_build_config.yaml" for i in range(len(case.get("e", [])))]
    m_files = [f"{root}/m{i}/v.yaml" for i in range(len(case.get("m", [])))]
    for p, t in zip(e_files + m_files, case.get("e", []) + case.get("m", [])):
        write(p, t)
    cfg = Config(platform="linux", arch="64", exclusive_config_files=e_files, variant_config_files=m_files,
                 ignore_system_variants=True)
    if "variant" in case:
        cfg.variant = case["variant"]
    os.chdir(root)  # no ./conda_build_config.yaml
    try:
        rows = []
        for v in get_package_variants(f"{root}/recipe", config=cfg):
            row = [str(v.get(k, "?")) for k in case["keys"]]
            if row not in rows:
                rows.append(row)
        return {"expect": sorted(rows)}
    except ValueError:
        return {"expect_error": True}


def main():
    path = os.path.abspath(sys.argv[1])
    record = "--record" in sys.argv
    with open(path) as f:
        doc = json.load(f)
    bad = 0
    for case in doc["cases"]:
        got = run_case(case, tempfile.mkdtemp(prefix="sf-prec-"))
        want = {k: case[k] for k in ("expect", "expect_error") if k in case}
        if record:
            case.pop("expect", None)
            case.pop("expect_error", None)
            case.update(got)
        elif got != want:
            bad += 1
            print(f"DIFF {case['name']}: conda-build {got}, recorded {want}", file=sys.stderr)
    if record:
        with open(path, "w") as f:
            f.write(json.dumps(doc, indent=1) + "\n")
    print(f"{len(doc['cases']) - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
