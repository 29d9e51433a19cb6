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
#include "types/platform.hpp"

namespace sf::script {

struct ScriptContext {
    std::filesystem::path prefix, build_prefix, src_dir, recipe_dir;
    std::string pkg_name, pkg_version, pkg_hash;
    // The staging build's name-version, the same for all its outputs: where
    // SRC_DIR appears in objects (-ffile-prefix-map). Empty: pkg_name-pkg_version.
    std::string source_name;
    int pkg_buildnum = 0;
    std::string py_ver;                  // "3.12", or "" without Python
    std::filesystem::path python;        // $PREFIX/bin/python when py_ver is set
    int cpu_count = 2;
    types::Platform target_platform, build_platform;  // default: this machine
    std::filesystem::path splitforge;    // our own binary
    std::vector<std::string> tool_dirs;  // dirs of mapped host tools, in order
    std::string home, lang = "C.UTF-8", tmpdir;
    std::map<std::string, std::string> variant;  // used variant keys
    // What the environment providers set: CC, CXX, NVCC and CUDA_HOME for
    // CUDA variants, FC, ... (CC/CXX default to gcc/g++).
    std::map<std::string, std::string> tools;
};

// PREFIX, BUILD_PREFIX, SRC_DIR, RECIPE_DIR, PKG_*, PY_VER, SP_DIR, PYTHON,
// CPU_COUNT, SHLIB_EXT, target_platform, build_platform, CMAKE_ARGS,
// CFLAGS/CXXFLAGS/FFLAGS (prefix maps, see prefix_map_flags), the
// tools (CC/CXX, NVCC/CUDA_HOME, ...), SPLITFORGE, PATH, HOME, LANG, TMPDIR
// and the variant keys. PATH: $PREFIX/bin, $BUILD_PREFIX/bin, the tool dirs, then
// /usr/local/bin:/usr/bin:/bin.
process::Env script_env(const ScriptContext& c);

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

// Runs the script in SRC_DIR. A non-zero exit is an error naming the script
// and the log.
Result<void> run_script(const ScriptRun& run, const ScriptContext& c);

}  // namespace sf::script
