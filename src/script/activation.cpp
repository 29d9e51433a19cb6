#include "script/activation.hpp"

#include <unistd.h>

#include <atomic>
#include <system_error>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::script {

namespace stdfs = std::filesystem;

namespace {

// conda/activate.py's _build_activate_stack for one prefix (from level 0,
// or stacked on the one before), then its scripts, as `conda activate`
// evaluates them. conda's condabin is not put on PATH: there is no conda.
// __sf_activating names the script being sourced, for the EXIT trap.
constexpr const char* kFunction = R"SH(__sf_conda_activate() {
    __sf_p=$1
    __sf_old=${CONDA_SHLVL:-0}
    shift
    if [ "$__sf_old" -gt 0 ]; then
        export "CONDA_PREFIX_${__sf_old}=${CONDA_PREFIX-}"
        export "CONDA_STACKED_$((__sf_old + 1))=true"
        export CONDA_PROMPT_MODIFIER="(${__sf_p},${CONDA_PROMPT_MODIFIER#(}"
    else
        export CONDA_PROMPT_MODIFIER="(${__sf_p}) "
    fi
    export CONDA_SHLVL=$((__sf_old + 1)) CONDA_PREFIX="$__sf_p" CONDA_DEFAULT_ENV="$__sf_p"
    export PATH="$__sf_p/bin${PATH:+:$PATH}"
    for __sf_s in "$@"; do
        __sf_activating=$__sf_s
        . "$__sf_s"
    done
    __sf_activating=
    unset __sf_p __sf_old __sf_s
}
)SH";

// The wrapper: STATUS, then per prefix PREFIX COUNT SCRIPT..., then "--",
// then "source FILE" or "exec ARGV...". A shell that ends while a script is
// being sourced writes its exit status and the script into STATUS.
constexpr const char* kMain = R"SH(__sf_status=$1
shift
__sf_activating=
trap '__sf_rc=$?; if [ -n "$__sf_activating" ]; then printf "%s\n%s\n" "$__sf_rc" "$__sf_activating" > "$__sf_status"; fi' EXIT
while [ "$1" != -- ]; do
    __sf_prefix=$1 __sf_n=$2
    shift 2
    __sf_conda_activate "$__sf_prefix" "${@:1:$__sf_n}"
    shift "$__sf_n"
done
shift
trap - EXIT
unset __sf_status __sf_activating __sf_prefix __sf_n
if [ "$1" = source ]; then
    __sf_script=$2
    set --
    . "$__sf_script"
else
    shift
    exec "$@"
fi
)SH";

std::string quote(const std::string& v) { return "'" + str::replace_all(v, "'", "'\\''") + "'"; }

std::atomic<unsigned> runs{0};

}  // namespace

Result<Activated> activated_command(const ActivationStack& stack, const stdfs::path& dir, After how,
                                    const std::vector<std::string>& command) {
    const stdfs::path wrapper = dir / "conda_activate_run.sh";
    std::string text = std::string("# Written by splitforge: conda's activation, then the command (see its arguments).\n") +
                       kFunction + kMain;
    std::error_code ec;
    stdfs::create_directories(dir, ec);
    if (auto ok = fs::write_file_atomic(wrapper, text); !ok) return unexpected(ok.error());
    Activated a;
    a.status = dir / (".sf-activation-" + std::to_string(::getpid()) + "-" + std::to_string(runs++));
    stdfs::remove(a.status, ec);
    a.argv = {"bash", "-e", wrapper.string(), a.status.string()};
    for (const auto& p : stack) {
        a.argv.push_back(p.prefix.string());
        a.argv.push_back(std::to_string(p.scripts.size()));
        for (const auto& s : p.scripts) a.argv.push_back(s.string());
    }
    a.argv.push_back("--");
    a.argv.push_back(how == After::source_script ? "source" : "exec");
    a.argv.insert(a.argv.end(), command.begin(), command.end());
    return a;
}

Result<void> activation_result(const Activated& a, const ActivationStack& stack) {
    std::error_code ec;
    if (!stdfs::exists(a.status, ec)) return {};
    auto text = fs::read_file(a.status);
    stdfs::remove(a.status, ec);
    if (!text) return unexpected(text.error());
    auto lines = str::split_lines(*text);
    const std::string rc = lines.empty() ? "?" : lines[0], script = lines.size() > 1 ? lines[1] : "";
    std::string package = "a package", rel = script, role = "a";
    for (const auto& p : stack)
        for (size_t i = 0; i < p.scripts.size(); ++i)
            if (p.scripts[i].string() == script) {
                if (!p.packages[i].empty()) package = p.packages[i];
                rel = p.scripts[i].lexically_relative(p.prefix).string();
                role = "the " + p.role;
            }
    return fail_runtime({}, package + ": activation script " + rel + " failed (exit " + rc +
                                               ") while activating " + role + " prefix [activation-failed]",
                        "the package's activation script failed in the activated shell (conda-build stops too, "
                        "naming no script): fix the script or leave its package out of the requirements");
}

std::string activation_text(const ActivationStack& stack) {
    std::string out = std::string("# conda activate, as the build had it:\n__sf_activating=\n") + kFunction;
    for (const auto& p : stack) {
        out += "__sf_conda_activate " + quote(p.prefix.string());
        for (const auto& s : p.scripts) out += " " + quote(s.string());
        out += "\n";
    }
    return out + "unset -f __sf_conda_activate\nunset __sf_activating\n";
}

}  // namespace sf::script
