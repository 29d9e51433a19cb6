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
#   --docker IMAGE                      run inside IMAGE when a Docker engine is reachable
#   --force                             rebuild configs already marked done
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

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }

filter='*' mode='' config='' docker_image='' force=0
orig_args=("$@")
while (($#)); do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --all) mode=all ;;
        --demo) mode=demo ;;
        --list) mode=list ;;
        --force) force=1 ;;
        --filter) [[ $# -ge 2 ]] || die "--filter needs a GLOB"; filter=$2; shift ;;
        --filter=*) filter=${1#--filter=} ;;
        --docker) [[ $# -ge 2 ]] || die "--docker needs an IMAGE"; docker_image=$2; shift ;;
        --docker=*) docker_image=${1#--docker=} ;;
        -*) die "unknown option '$1' (see --help)" ;;
        *) [[ -z $config ]] || die "one CONFIG at a time (or --all)"; config=${1%.yaml}; config=${config##*/}; mode=one ;;
    esac
    shift
done

# --docker: re-run this script inside the container, on the same checkout.
if [[ -n $docker_image && -z ${SF_IN_DOCKER:-} ]]; then
    if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
        args=()
        skip=0
        for a in "${orig_args[@]}"; do
            if ((skip)); then skip=0; continue; fi
            case $a in --docker) skip=1 ;; --docker=*) ;; *) args+=("$a") ;; esac
        done
        tty=(); [[ -t 0 && -t 1 ]] && tty=(-it)
        say "running in Docker image $docker_image"
        exec docker run --rm "${tty[@]}" -v "$PWD:/feedstock" -w /feedstock \
            -e SF_IN_DOCKER=1 -e CPU_COUNT="${CPU_COUNT:-}" -e SF_RECIPE="$recipe" \
            -e SF_VARIANTS_DIR="$variants" -e SF_ARTIFACTS="$artifacts" \
            "$docker_image" ./build-locally.sh "${args[@]}"
    fi
    say "no Docker engine reachable (docker info failed); building on the host instead"
fi

[[ -n ${CPU_COUNT:-} ]] && export CPU_COUNT

# --demo, or no config and no terminal: the embedded demo.
if [[ $mode == demo || ( -z $mode && ! ( -t 0 && -t 1 ) ) ]]; then
    [[ -f scripts/demo.sh ]] || die "scripts/demo.sh is missing; pass CONFIG or --all"
    [[ $mode == demo ]] || say "no terminal: building the default demo (scripts/demo.sh)"
    if [[ -z ${SPLITFORGE:-} ]]; then
        say "building splitforge (scripts/configure.sh)"
        bash scripts/configure.sh splitforge
        export SPLITFORGE=$PWD/${SF_BUILD_DIR:-build}/src/splitforge
    fi
    exec bash scripts/demo.sh "$artifacts/demo-channel"
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

# The tool: $SPLITFORGE, or build it (scripts/configure.sh installs deps too).
if [[ -n ${SPLITFORGE:-} ]]; then
    sf=$SPLITFORGE
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
