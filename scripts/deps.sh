#!/usr/bin/env bash
# Installs (or names) the Debian packages splitforge needs to build and test.
# As root it runs apt-get; otherwise it prints the exact command to run.
set -euo pipefail
pkgs=(g++ cmake ninja-build pkg-config ccache
      libyaml-cpp-dev libyaml-dev libboost-dev libboost-filesystem-dev libboost-regex-dev
      libfmt-dev catch2 nlohmann-json3-dev libcli11-dev
      libmimalloc-dev libarchive-dev nettle-dev liblzma-dev zlib1g-dev libzstd-dev zstd libbz2-dev bzip2 libssl-dev
      libcurl4-openssl-dev nginx openssl  # openssl: the auth/TLS tests make an htpasswd and a test CA
      libmsgpack-cxx-dev python3 python3-msgpack  # CEP-16 shards; python3-msgpack: the tests' independent reader
      patchelf patch git libopenblas-dev strace  # strace: the fan-out e2e test watches the compiler's execve
      make autoconf automake libtool)  # the last four: the build-real feedstocks (yaml uses autotools)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node may come from another packaging (e.g. nodesource, npm bundled): check the commands.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "deps: installing ${missing[*]}" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  else
    echo "deps: missing Debian packages. Run:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
