#!/usr/bin/python3
"""An independent reader of what `splitforge index` writes (CEP-16).

Usage: check_shards.py CHANNEL SUBDIR...

For each subdir: repodata.json.zst (through the zstd CLI) is byte for byte
repodata.json; repodata_shards.msgpack.zst decodes (Debian's python3-msgpack)
to {"version": 1, "info": {...}, "shards": {name: 32 bytes}}; each shard file
is named by the hex sha256 of its bytes and holds exactly the records of its
name, md5/sha256 as bytes equal to repodata.json's hex, every other field
equal; every record is in exactly one shard; no other shard file is left.
Prints one "OK" line per subdir, or the problems, and exits 1.
"""
import hashlib
import json
import os
import subprocess
import sys

import msgpack

problems = []


def unzstd(path):
    return subprocess.run(["zstd", "-d", "-c", "-q", path], check=True, capture_output=True).stdout


def unpack(data):
    # raw=False: strings as str, bin as bytes; strict_map_key: keys are str.
    return msgpack.unpackb(data, raw=False, strict_map_key=True)


def check_record(where, shard_rec, json_rec):
    for key in ("md5", "sha256"):
        if key not in json_rec:
            continue
        got = shard_rec.get(key)
        if not isinstance(got, bytes):
            problems.append(f"{where}: {key} is {type(got).__name__}, not bytes")
        elif got != bytes.fromhex(json_rec[key]):
            problems.append(f"{where}: {key} bytes differ from repodata.json's hex")
    rest_s = {k: v for k, v in shard_rec.items() if k not in ("md5", "sha256")}
    rest_j = {k: v for k, v in json_rec.items() if k not in ("md5", "sha256")}
    if rest_s != rest_j:
        problems.append(f"{where}: fields differ: shard {rest_s} vs repodata.json {rest_j}")


def check_subdir(channel, subdir):
    d = os.path.join(channel, subdir)
    raw = open(os.path.join(d, "repodata.json"), "rb").read()
    if unzstd(os.path.join(d, "repodata.json.zst")) != raw:
        problems.append(f"{subdir}: repodata.json.zst does not decompress to repodata.json")
    repodata = json.loads(raw)
    index = unpack(unzstd(os.path.join(d, "repodata_shards.msgpack.zst")))
    if index.get("version") != 1:
        problems.append(f"{subdir}: index version is {index.get('version')!r}")
    info = index.get("info", {})
    for key in ("base_url", "shards_base_url", "subdir"):
        if not isinstance(info.get(key), str):
            problems.append(f"{subdir}: info.{key} missing or not a string")
    if info.get("subdir") != subdir:
        problems.append(f"{subdir}: info.subdir is {info.get('subdir')!r}")
    shards_dir = os.path.normpath(os.path.join(d, info.get("shards_base_url", "")))
    seen = {}  # (section, fn) -> shard name
    live = set()
    for name, digest in index.get("shards", {}).items():
        if not isinstance(digest, bytes) or len(digest) != 32:
            problems.append(f"{subdir}: shard hash of {name} is not 32 bytes")
            continue
        fn = digest.hex() + ".msgpack.zst"
        live.add(fn)
        path = os.path.join(shards_dir, fn)
        data = open(path, "rb").read()
        if hashlib.sha256(data).digest() != digest:
            problems.append(f"{subdir}: {fn}: its sha256 is not its name")
        shard = unpack(unzstd(path))
        if shard.get("removed") != []:
            problems.append(f"{subdir}: {name}: removed is {shard.get('removed')!r}")
        for section in ("packages", "packages.conda"):
            for pfn, rec in shard.get(section, {}).items():
                where = f"{subdir}/{pfn} ({name})"
                if rec.get("name") != name:
                    problems.append(f"{where}: record name {rec.get('name')!r} in shard {name}")
                if (section, pfn) in seen:
                    problems.append(f"{where}: also in shard {seen[(section, pfn)]}")
                seen[(section, pfn)] = name
                if pfn not in repodata[section]:
                    problems.append(f"{where}: not in repodata.json {section}")
                else:
                    check_record(where, rec, repodata[section][pfn])
    for section in ("packages", "packages.conda"):
        for pfn in repodata[section]:
            if (section, pfn) not in seen:
                problems.append(f"{subdir}/{pfn}: in repodata.json but in no shard")
    if os.path.isdir(shards_dir):
        for fn in sorted(os.listdir(shards_dir)):
            if fn.endswith(".msgpack.zst") and fn not in live:
                problems.append(f"{subdir}: stale shard {fn} left")
    if not problems:
        print(f"OK {subdir}: {len(seen)} records in {len(live)} shards")


def main():
    channel, subdirs = sys.argv[1], sys.argv[2:]
    for s in subdirs:
        check_subdir(channel, s)
    if problems:
        print("\n".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
