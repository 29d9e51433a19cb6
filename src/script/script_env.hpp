#pragma once
// The script stage: the exact environment a recipe script gets, and running
// it (`bash -e script`) through the process wrapper with $PREFIX,
// $BUILD_PREFIX and $SRC_DIR masked and every line tee'd to a log.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "process/process.hpp"
#include "script/activation.hpp"
#include "types/platform.hpp"

namespace sf::script {

// Which of conda-build's environments a script runs in: a build script
// (build.sh, an output's script) or a test (run_test.sh, test/commands).
enum class Phase { build, test };

// The variant's language versions (conda-build's PY_VER, NPY_VER, PERL_VER,
// LUA_VER, R_VER are set from them even when no such language is installed);
// the defaults are conda-build 24.11's DEFAULT_VARIANTS under Python 3.12.
struct LanguageVersions {
    std::string python = "3.12", numpy = "1.26", perl = "5.26.2", lua = "5", r_base = "3.5";
};

struct ScriptContext {
    Phase phase = Phase::build;
    std::filesystem::path prefix, build_prefix, src_dir, recipe_dir;
    std::string pkg_name, pkg_version, pkg_hash;
    std::string pkg_build_string;        // "" before the output is known (staging build): "placeholder"
    std::string top_pkg_name, top_pkg_version;  // an output's script: the recipe's package (TOP_PKG_*)
    // The staging build's name-version, the same for all its outputs: where
    // SRC_DIR appears in objects (-ffile-prefix-map). Empty: pkg_name-pkg_version.
    std::string source_name;
    int pkg_buildnum = 0;
    std::string py_ver;                  // "3.12" when the env has a Python (PYTHON is set), else ""
    LanguageVersions versions;           // PY_VER & co. without an installed interpreter
    std::filesystem::path python;        // $PREFIX/bin/python when py_ver is set
    int cpu_count = 2;
    types::Platform target_platform, build_platform;  // default: this machine
    std::filesystem::path splitforge;    // our own binary
    std::vector<std::string> tool_dirs;  // dirs of mapped host tools, in order
    std::string home, lang = "C.UTF-8", tmpdir;
    bool dirty = false;                  // --dirty: DIRTY=1
    // recipe.yaml's build.script env: set last, as rattler-build does.
    std::map<std::string, std::string> script_env;
    // The caller's environment: conda-build passes a few of its variables on
    // (proxies, CA bundles, LC_ALL, MAKEFLAGS, DISPLAY; see inherited_keys()).
    process::Env inherited;
    // The variant's keys: a build's used keys; a test's are the package's
    // hash_input (build.py's test of a package file: config.variant =
    // hash_input). Those named like a variable conda-build sets (by upper
    // case) or a language (python, numpy, ...) are left out, as get_dict does.
    std::map<std::string, std::string> variant;
    // What the environment providers set: CC, CXX, NVCC and CUDA_HOME for
    // CUDA variants, FC, ... (CC/CXX default to gcc/g++).
    std::map<std::string, std::string> tools;
    // What the compiler packages' activation scripts would set (HOST, BUILD,
    // CFLAGS, LDFLAGS, ...; env's system map), laid over the rest last, as
    // conda-build's activation runs after its own variables: ${NAME} expands
    // to the variable as set so far, and flags go before what the
    // environment already holds (activate-gcc.sh's "${CFLAGS:+ }${CFLAGS}").
    // Build scripts only.
    std::map<std::string, std::string> activation;
    // The prefixes conda activates before the script (build: host, then
    // build stacked; a test: the test prefix) and their activate.d scripts.
    // Empty: the script runs without activation.
    ActivationStack activate;
};

// conda-build's environ.get_dict() for Linux (conda_build/environ.py:
// conda_build_vars, python/perl/lua/r_vars, meta_vars, os_vars, linux_vars),
// plus build.py's CONDA_BUILD_STATE (and PIP_* for builds, TOP_PKG_* for an
// output's script), then the engine's own: CMAKE_ARGS (what conda-forge's
// compiler activation puts there that host tools can use), CFLAGS/CXXFLAGS/
// FFLAGS prefix maps (prefix_map_flags), the tools (CC/CXX, NVCC/CUDA_HOME,
// ...), the compiler activation (`activation`), SPLITFORGE, PATH, HOME, LANG,
// TMPDIR and the used variant keys.
// A test (Phase::test) has no BUILD_PREFIX, and SRC_DIR is its test dir.
// PATH: $BUILD_PREFIX/bin, $PREFIX/bin (conda-build's get_dict under
// path_prepended(host), path_prepended(build)), the tool dirs, then
// /usr/local/bin:/usr/bin:/bin. Where it departs from conda-build is the
// table in tests/unit/script/test_script_env.cpp.
process::Env script_env(const ScriptContext& c);

// The variables conda-build copies from its caller's environment when set.
const std::vector<std::string>& inherited_keys();

// -ffile-prefix-map flags that turn SRC_DIR, PREFIX and BUILD_PREFIX into
// fixed paths (/usr/local/src/conda/<source_name>, /usr/local/src/conda-prefix,
// /usr/local/src/conda-build-prefix) in __FILE__ and debug info, as
// conda-forge's -fdebug-prefix-map does: two builds in different work dirs
// compile the same objects. Empty when a path holds whitespace (the flags
// travel in a space-separated variable).
std::string prefix_map_flags(const ScriptContext& c);

// The masks for streamed output: $PREFIX, $BUILD_PREFIX, $SRC_DIR.
std::vector<process::Mask> script_masks(const ScriptContext& c);

struct ScriptRun {
    std::filesystem::path script;       // a file to run with bash -e
    std::vector<std::string> lines;     // or inline lines, written to a temp script in `work`
    std::filesystem::path work;         // where an inline script is written
    std::filesystem::path log;          // per-output log (appended)
    std::function<void(const std::string&)> on_line;  // default: our stderr
};

// Runs the script in SRC_DIR, after the context's activation (sourced in
// the activated shell, as conda-build's conda_build.sh). A non-zero exit is
// an error naming the script and the log; a failed activation script is
// activation_result's [activation-failed] error.
Result<void> run_script(const ScriptRun& run, const ScriptContext& c);

}  // namespace sf::script
