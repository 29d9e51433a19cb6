#!/usr/bin/python3
"""Writes formats/: demolib-1.2.0-h0_0 as both .conda and .tar.bz2 from the same
input, using ../../../../shared/conda-check/make-fixture.py's builders. The
install tests check that both install identically.

Run from this directory: /usr/bin/python3 make-formats.py"""
import importlib.util, os

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "../../../../shared/conda-check/make-fixture.py")
spec = importlib.util.spec_from_file_location("make_fixture", src)
mf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mf)

demolib = mf.package_specs("valid")[0]
for fmt in ("tar.bz2", "conda"):
    demolib["format"] = fmt
    fn, data = mf.build_package(demolib, "valid")
    with open(os.path.join(here, "formats", fn), "wb") as f:
        f.write(data)
    print(fn)
