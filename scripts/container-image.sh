#!/usr/bin/env bash
# A local image for `build-locally.sh --podman IMAGE` (or --docker) where no
# registry is reachable: a debootstrap of the host's Debian release from
# apt's mirror, with what splitforge runs on and what the demo's builds
# need, imported as localhost/splitforge-build:<release>-<10 hex of the
# package list>. A second call finds the image and reuses it.
#
#   scripts/container-image.sh [podman|docker]
#
# Prints `image=NAME` and `containers_conf=FILE` (empty, or a podman config
# for hosts where podman's defaults cannot start a container: hybrid
# cgroups, setrlimit refused; it then uses runc and no default ulimits; pass
# it on as CONTAINERS_CONF). As root it installs the engine, debootstrap and
# runc with apt-get when missing. Exits 77 with the reason on stderr where no
# image can be built or run here.
set -euo pipefail
engine=${1:-podman}
root=$(cd "$(dirname "$0")/.." && pwd)
skip() { echo "container-image: cannot run here: $*" >&2; exit 77; }
pkgs=(gcc g++ cmake ninja-build make pkg-config python3 python3-dev patchelf patch git file zstd bzip2 ca-certificates
      libcurl4 libmimalloc2.0 libssl3 libzstd1 libbz2-1.0 liblzma5 zlib1g)

# shellcheck source=/dev/null
[[ -r /etc/os-release ]] && . /etc/os-release
[[ ${ID:-} == debian && -n ${VERSION_CODENAME:-} ]] || skip "not a Debian host (debootstrap makes the host's release)"
need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
if [[ $engine == podman ]]; then
    command -v podman >/dev/null || need+=(podman)
    command -v runc >/dev/null || need+=(runc)
else
    command -v docker >/dev/null || need+=(docker.io)
fi
if ((${#need[@]})); then
    [[ $(id -u) == 0 ]] || skip "missing ${need[*]} (sudo apt-get install -y ${need[*]})"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2 ||
        skip "apt-get install ${need[*]} failed"
fi
"$engine" info >/dev/null 2>&1 || skip "'$engine info' fails: no engine"

tag=$(printf '%s\n' "$VERSION_CODENAME" "${pkgs[@]}" | sha256sum | cut -c1-10)
image=localhost/splitforge-build:$VERSION_CODENAME-$tag
if ! "$engine" image exists "$image" 2>/dev/null && ! "$engine" image inspect "$image" >/dev/null 2>&1; then
    [[ $(id -u) == 0 ]] || skip "debootstrap needs root"
    work=$(mktemp -d "${TMPDIR:-/tmp}/sf-rootfs.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    echo "container-image: debootstrap $VERSION_CODENAME into $work (about a minute)" >&2
    include=$(IFS=,; echo "${pkgs[*]}")
    debootstrap --variant=minbase --include="$include" "$VERSION_CODENAME" "$work/rootfs" http://deb.debian.org/debian \
        > "$work/debootstrap.log" 2>&1 || { tail -5 "$work/debootstrap.log" >&2; skip "debootstrap failed (no mirror?)"; }
    rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb
    tar -C "$work/rootfs" -c . | "$engine" import - "$image" >/dev/null || skip "$engine import failed"
fi

# Can it start a container? Else, for podman, the settings that can.
conf=''
if ! "$engine" run --rm "$image" true >/dev/null 2>&1; then
    [[ $engine == podman ]] || skip "'docker run $image true' fails"
    conf=${SF_CONTAINERS_CONF:-$root/build/containers.conf}
    mkdir -p "$(dirname "$conf")"
    printf '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n' > "$conf"
    CONTAINERS_CONF=$conf podman run --rm "$image" true >/dev/null 2>&1 ||
        skip "podman cannot start a container here, also with runc and no default ulimits"
fi
echo "image=$image"
echo "containers_conf=$conf"
