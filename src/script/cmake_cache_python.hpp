#pragma once
// Retargets a configured CMake build at another Python interpreter, so that a
// rebuild recompiles only what depends on Python (the megabuild). Follows the
// conventions of CMake's FindPython/FindPython3 (Python_*, Python3_*, the
// internal _Python_* find cache), FindPythonInterp/FindPythonLibs (PYTHON_*)
// and pybind11 (PYTHON_MODULE_EXTENSION, PYBIND11_PYTHON_EXECUTABLE_LAST...).
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "process/process.hpp"
#include "script/cmake_cache.hpp"

namespace sf::script {

// What CMake's finders would learn from the interpreter itself.
struct PythonFacts {
    std::filesystem::path executable;  // absolute; sys.executable (a venv's own python stays itself)
    std::string version;               // "3.12.1"
    std::string version_short;         // "3.12"
    std::string include_dir;           // sysconfig INCLUDEPY
    std::string ext_suffix;            // ".cpython-312-x86_64-linux-gnu.so"
    std::string soabi;                 // "cpython-312-x86_64-linux-gnu"
    std::string library;               // LIBDIR/LDLIBRARY when shared and present, else empty
    std::string prefix;                // sys.prefix
    std::string site_packages;         // sysconfig platlib
    std::string stdlib;                // sysconfig stdlib
};

// Runs `python -I -c ...` through the process wrapper. `python` may be a bare
// name, looked up on env's PATH.
Result<PythonFacts> query_python(const std::filesystem::path& python, const process::Env& env);

struct RetargetReport {
    std::vector<std::string> changed;  // keys set to the new interpreter's facts
    std::vector<std::string> dropped;  // keys erased so the finders run again
    std::vector<std::string> stale;    // untouched keys whose value still names the old interpreter
};

// Pure: edits `cache` in place from known facts.
RetargetReport retarget_python(CMakeCache& cache, const PythonFacts& facts);

// Queries `python` (with process::minimal_env()) and retargets.
Result<RetargetReport> retarget_python(CMakeCache& cache, const std::filesystem::path& python);

}  // namespace sf::script
