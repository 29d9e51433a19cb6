#!/usr/bin/python3
"""Writes the hostile .tar.bz2 packages used by tests/unit/archive/test_read.cpp.

Run from this directory: /usr/bin/python3 make-bad.py  (deterministic output).
Each holds a valid info/index.json plus one unsafe member."""
import bz2, io, json, tarfile

def pkg(name, extra):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        def add(ti, data=b""):
            ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = 1700000000, 0, 0, "", ""
            ti.size = len(data)
            tf.addfile(ti, io.BytesIO(data))
        idx = json.dumps({"name": name, "version": "1.0", "build": "0", "build_number": 0,
                          "depends": [], "subdir": "noarch", "noarch": "generic"}).encode()
        add(tarfile.TarInfo("info/index.json"), idx)
        add(tarfile.TarInfo("lib/ok.txt"), b"fine\n")
        extra(add)
    with open(f"{name}-1.0-0.tar.bz2", "wb") as f:
        f.write(bz2.compress(buf.getvalue(), 9))

def symlink_escape(add):
    ti = tarfile.TarInfo("lib/evil"); ti.type, ti.linkname = tarfile.SYMTYPE, "../../etc/passwd"; add(ti)

def symlink_absolute(add):
    ti = tarfile.TarInfo("lib/evil"); ti.type, ti.linkname = tarfile.SYMTYPE, "/etc/passwd"; add(ti)

def absolute_member(add):
    add(tarfile.TarInfo("/tmp/evil.txt"), b"escape\n")

def through_symlink(add):
    ti = tarfile.TarInfo("lib/dir"); ti.type, ti.linkname = tarfile.SYMTYPE, "."; add(ti)
    add(tarfile.TarInfo("lib/dir/x.txt"), b"written through a link\n")

pkg("symlink-escape", symlink_escape)
pkg("symlink-absolute", symlink_absolute)
pkg("absolute-member", absolute_member)
pkg("through-symlink", through_symlink)
