#!/usr/bin/env bash
# Build feedstock configs locally: pick configs from variants/, build each
# with `splitforge build`, log, and mark it done. One job; the logic that
# matters (rendering, building, packaging) lives in splitforge.
#
#   ./build-locally.sh                  terminal: numbered menu of configs
#                                       no terminal: the default demo (scripts/demo.sh)
#   ./build-locally.sh --demo           the embedded demo, into build_artifacts/demo-channel
#   ./build-locally.sh CONFIG           build variants/CONFIG.yaml
#   ./build-locally.sh --all            build every config in sequence
#   ./build-locally.sh --list           print the config names
#   --filter GLOB                       narrow the menu / --all / --list (e.g. 'linux_64_*')
#   --docker IMAGE, --podman IMAGE      run each job inside IMAGE, as conda-forge's
#                                       run_docker_build.sh does (see below)
#   --force                             rebuild configs already marked done
#
# In a container: the feedstock is mounted at /home/conda/feedstock_root (a
# recipe, variants or artifacts dir outside it gets a mount of its own:
# /home/conda/recipe_root, variants_root, build_artifacts), with CONFIG, CPU_COUNT and
# HOST_USER_ID (default: yours) set. SPLITFORGE, when set, is mounted
# read-only as /usr/local/bin/splitforge (the image must run it: the same
# distribution); else the image's `splitforge`, else scripts/configure.sh
# builds one in build-container/. What the job writes in build_artifacts/ is
# handed to HOST_USER_ID, and the config's done-marker must exist when the
# container exits. CONDA_FORGE_DOCKER_RUN_ARGS adds `run` options, as in
# conda-smithy. scripts/container-image.sh builds a Debian image offline.
#
# Output: build_artifacts/channel (packages), build_artifacts/<config>-log.txt,
# build_artifacts/build-done-<config> (a rerun skips these configs).
# Environment: CPU_COUNT (parallel jobs), SPLITFORGE (the binary; skips
# scripts/configure.sh), SF_RECIPE (recipe), SF_VARIANTS_DIR (variants, or
# .ci_support when only that exists),
# SF_ARTIFACTS (build_artifacts), SF_BUILD_DIR (where configure.sh builds).
set -euo pipefail
cd "$(dirname "$0")"

recipe=${SF_RECIPE:-recipe}
# Our variants/, or conda-smithy's .ci_support/ in a conda-forge feedstock.
variants=${SF_VARIANTS_DIR:-variants}
[[ -n ${SF_VARIANTS_DIR:-} || -d $variants || ! -d .ci_support ]] || variants=.ci_support
artifacts=${SF_ARTIFACTS:-build_artifacts}

die() { echo "build-locally: error: $*" >&2; exit 1; }
say() { echo "build-locally: $*" >&2; }

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

filter='*' mode='' config='' engine='' image='' force=0
while (($#)); do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --all) mode=all ;;
        --demo) mode=demo ;;
        --list) mode=list ;;
        --force) force=1 ;;
        --filter) [[ $# -ge 2 ]] || die "--filter needs a GLOB"; filter=$2; shift ;;
        --filter=*) filter=${1#--filter=} ;;
        --docker|--podman) [[ $# -ge 2 ]] || die "$1 needs an IMAGE"; engine=${1#--}; image=$2; shift ;;
        --docker=*|--podman=*) engine=${1%%=*}; engine=${engine#--}; image=${1#*=} ;;
        -*) die "unknown option '$1' (see --help)" ;;
        *) [[ -z $config ]] || die "one CONFIG at a time (or --all)"; config=${1%.yaml}; config=${config##*/}; mode=one ;;
    esac
    shift
done

# Inside the container, as root for another user: build_artifacts/ is theirs
# in the end, whatever the job did.
if [[ -n ${SF_IN_CONTAINER:-} && $(id -u) == 0 && ${HOST_USER_ID:-0} != 0 ]]; then
    trap 'chown -R "$HOST_USER_ID:${HOST_GROUP_ID:-$HOST_USER_ID}" "$artifacts" 2>/dev/null || true' EXIT
fi
if [[ -n $engine && -z ${SF_IN_CONTAINER:-} ]]; then
    command -v "$engine" >/dev/null 2>&1 || die "--$engine: no '$engine' command (Debian: apt-get install ${engine/docker/docker.io})"
    "$engine" info >/dev/null 2>&1 || die "--$engine: '$engine info' failed: no container engine reachable (drop --$engine to build on the host)"
fi

[[ -n ${CPU_COUNT:-} ]] && export CPU_COUNT

# A host path as the container sees it, in $cpath: below the feedstock root
# it is there already; elsewhere it gets a mount of its own at /home/conda/NAME.
mounts=()
container_path() {  # HOST_DIR NAME
    local abs
    abs=$(cd "$1" && pwd)
    case $abs/ in
        "$PWD"/*) cpath=/home/conda/feedstock_root${abs#"$PWD"} ;;
        *) mounts+=(-v "$abs:/home/conda/$2:rw,z"); cpath=/home/conda/$2 ;;
    esac
}

# One job in the container (CONFIG: a config name, or demo), then this
# script inside it with ARGS; 0 only when the job's done-marker is there.
run_in_container() {  # CONFIG ARGS...
    local c=$1; shift
    local marker=$artifacts/build-done-$c
    mkdir -p "$artifacts"
    rm -f "$marker"
    mounts=(-v "$PWD:/home/conda/feedstock_root:rw,z")
    local envs=(-e SF_IN_CONTAINER=1 -e CONFIG="$c" -e HOST_USER_ID="${HOST_USER_ID:-$(id -u)}"
                -e HOST_GROUP_ID="${HOST_GROUP_ID:-$(id -g)}" -e SF_BUILD_DIR=build-container)
    # A recipe in the feedstock stays there, so that its relative source paths still resolve.
    container_path "$recipe" recipe_root; envs+=(-e SF_RECIPE="$cpath")
    [[ -n ${CPU_COUNT:-} ]] && envs+=(-e CPU_COUNT="$CPU_COUNT")
    container_path "$artifacts" build_artifacts; envs+=(-e SF_ARTIFACTS="$cpath")
    if [[ -d $variants ]]; then container_path "$variants" variants_root; envs+=(-e SF_VARIANTS_DIR="$cpath"); fi
    if [[ -n ${SPLITFORGE:-} ]]; then
        mounts+=(-v "$(readlink -f "$SPLITFORGE"):/usr/local/bin/splitforge:ro")
        envs+=(-e SPLITFORGE=/usr/local/bin/splitforge)
    fi
    local extra=()
    [[ $engine == podman && $(id -u) != 0 ]] && extra+=(--userns=keep-id)  # rootless: files stay the user's
    [[ -t 0 && -t 1 ]] && extra+=(-it)
    # shellcheck disable=SC2206  # the user's extra options, split as conda-smithy splits them
    extra+=(${CONDA_FORGE_DOCKER_RUN_ARGS:-})
    say "running $c in $engine image $image"
    local rc=0
    "$engine" run --rm "${extra[@]}" "${mounts[@]}" "${envs[@]}" -w /home/conda/feedstock_root "$image" \
        bash /home/conda/feedstock_root/build-locally.sh "$@" || rc=$?
    ((rc == 0)) || { say "the $engine job for $c exited $rc"; return 1; }
    [[ -f $marker ]] || { say "the $engine job for $c ended without its done-marker $marker"; return 1; }
}

# --demo, or no config and no terminal: the embedded demo.
if [[ $mode == demo || ( -z $mode && ! ( -t 0 && -t 1 ) ) ]]; then
    if [[ -n $engine && -z ${SF_IN_CONTAINER:-} ]]; then run_in_container demo --demo; exit; fi
    [[ -f scripts/demo.sh ]] || die "scripts/demo.sh is missing; pass CONFIG or --all"
    [[ $mode == demo ]] || say "no terminal: building the default demo (scripts/demo.sh)"
    if [[ -z ${SPLITFORGE:-} ]]; then
        say "building splitforge (scripts/configure.sh)"
        bash scripts/configure.sh splitforge
        export SPLITFORGE=$PWD/${SF_BUILD_DIR:-build}/src/splitforge
    fi
    bash scripts/demo.sh "$artifacts/demo-channel"
    mkdir -p "$artifacts" && date -u +%FT%TZ > "$artifacts/build-done-demo"
    exit 0
fi

[[ -d $variants ]] || die "variants directory '$variants' not found (run: splitforge rerender $recipe)"

# Only configs this machine can build: their target_platform is the host's.
case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) host=linux-64 ;;
    Linux-aarch64|Linux-arm64) host=linux-aarch64 ;;
    Linux-ppc64le) host=linux-ppc64le ;;
    Darwin-x86_64) host=osx-64 ;;
    Darwin-arm64) host=osx-arm64 ;;
    *) host=unknown ;;
esac
target_of() { awk '/^target_platform:/ { getline; sub(/^- */, ""); gsub(/\047/, ""); print; exit }' "$1"; }

configs=() others=0
for f in "$variants"/*.yaml; do
    [[ -e $f ]] || continue
    c=$(basename "$f" .yaml)
    # shellcheck disable=SC2053
    [[ $c == $filter ]] || continue
    if [[ $(target_of "$f") != "$host" ]]; then others=$((others + 1)); continue; fi
    configs+=("$c")
done
((others == 0)) || [[ $mode == one ]] || say "$others config(s) for other platforms left out (this host builds $host)"

if [[ $mode == list ]]; then
    ((${#configs[@]})) && printf '%s\n' "${configs[@]}"
    exit 0
fi
if [[ $mode == one ]]; then
    [[ -f $variants/$config.yaml ]] || {
        echo "build-locally: error: unknown config '$config' (no $variants/$config.yaml); known configs:" >&2
        for f in "$variants"/*.yaml; do [[ -e $f ]] && echo "  $(basename "$f" .yaml)" >&2; done
        exit 1
    }
    t=$(target_of "$variants/$config.yaml")
    [[ $t == "$host" ]] || die "config '$config' targets $t; this host builds $host"
    configs=("$config")
fi
((${#configs[@]})) || die "no configs in $variants matching '$filter'"

if [[ -z $mode ]]; then  # a terminal: let the user choose
    echo "Configs in $variants:"
    for i in "${!configs[@]}"; do printf '  %2d) %s\n' $((i + 1)) "${configs[$i]}"; done
    read -r -p "Build which config? [1-${#configs[@]}] " pick
    if ! [[ $pick =~ ^[0-9]+$ ]] || ((pick < 1 || pick > ${#configs[@]})); then die "not a choice: '$pick'"; fi
    configs=("${configs[$((pick - 1))]}")
fi

# In containers: one job per config, skipping those already done.
if [[ -n $engine && -z ${SF_IN_CONTAINER:-} ]]; then
    failed=()
    for c in "${configs[@]}"; do
        if [[ -f $artifacts/build-done-$c && $force -eq 0 ]]; then say "skipped $c (done: $artifacts/build-done-$c; --force rebuilds)"; continue; fi
        run_in_container "$c" "$c" || failed+=("$c")
    done
    ((${#failed[@]} == 0)) || die "failed in $engine: ${failed[*]}"
    exit 0
fi

# The tool: $SPLITFORGE, the image's splitforge in a container, or build it
# (scripts/configure.sh installs deps too).
if [[ -n ${SPLITFORGE:-} ]]; then
    sf=$SPLITFORGE
elif [[ -n ${SF_IN_CONTAINER:-} ]] && command -v splitforge >/dev/null; then
    sf=$(command -v splitforge)
else
    say "building splitforge (scripts/configure.sh)"
    bash scripts/configure.sh splitforge
    sf=$PWD/${SF_BUILD_DIR:-build}/src/splitforge
fi
[[ -x $sf ]] || die "splitforge binary '$sf' not found or not executable"

mkdir -p "$artifacts/channel"
built=0 skipped=0 failed=()
for c in "${configs[@]}"; do
    done_marker=$artifacts/build-done-$c
    log=$artifacts/$c-log.txt
    if [[ -f $done_marker && $force -eq 0 ]]; then
        say "skipped $c (done: $done_marker; --force rebuilds)"
        skipped=$((skipped + 1))
        continue
    fi
    say "building $c (log: $log)"
    tmp_log=$artifacts/.$c-log.txt.tmp
    start=$(date +%s)
    set +e
    # stderr reaches tee, not the terminal: ask for the progress lines when ours is one.
    progress=(); [[ -t 2 ]] && progress=(--progress always)
    "$sf" build "$recipe" -m "$variants/$c.yaml" --output-folder "$artifacts/channel" --skip-existing \
        ${progress[@]+"${progress[@]}"} 2>&1 | tee "$tmp_log"
    rc=${PIPESTATUS[0]}
    set -e
    mv -f "$tmp_log" "$log"
    if ((rc == 0)); then
        printf 'config=%s\nseconds=%s\n' "$c" $(($(date +%s) - start)) > "$done_marker.tmp"
        mv -f "$done_marker.tmp" "$done_marker"
        built=$((built + 1))
    else
        say "FAILED $c (exit $rc); see $log"
        failed+=("$c")
    fi
done
say "built $built, skipped $skipped, failed ${#failed[@]}${failed:+: ${failed[*]}}"
((${#failed[@]} == 0))
