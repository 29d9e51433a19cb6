#pragma once
// Python interpreters of the host, discovered at run time (never hard-coded):
// `pythonX.Y` on PATH, then every pyenv version ($PYENV_ROOT, else ~/.pyenv,
// as `pyenv root` says). Each candidate is asked for its own version, real
// executable, prefix and whether Python.h exists. A pyenv shim on PATH (one
// run is dozens of bash processes) is resolved as `pyenv exec` would
// ($PYENV_VERSION, .python-version, <root>/version) and its target probed
// instead; the probes of different minors run concurrently. A `python X.Y`
// requirement of the system provider becomes a venv made from the interpreter.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "process/process.hpp"

namespace sf::env {

struct Interpreter {
    std::string minor;    // "3.12"
    std::string version;  // "3.12.1"
    std::filesystem::path exe;      // real path of the executable
    std::filesystem::path prefix;   // sys.base_prefix (a pyenv version dir, /usr, ...)
    bool headers = false;           // Python.h present (needed to build extensions)
};

using Interpreters = std::map<std::string, Interpreter>;  // by minor version

// Candidates: python3.6 ... python3.15 on PATH, then pyenv versions. The
// first working interpreter with headers wins for each minor version; a
// candidate named for a minor already found is not run. `minors` ("3.12",
// ...), when not empty, limits the candidates to those named for them.
Interpreters discover_pythons(const process::Env& env, const std::set<std::string>& minors = {});

// Asks one executable about itself; an error when it does not run.
Result<Interpreter> probe_python(const std::filesystem::path& exe, const process::Env& env);

// What `<exe> -m venv --without-pip <prefix>` makes, written directly (the
// prefix is removed first).
Result<void> make_venv(const Interpreter& py, const std::filesystem::path& prefix);

// Where a venv/prefix of this Python keeps its packages.
std::filesystem::path site_packages(const std::filesystem::path& prefix, const std::string& minor);

}  // namespace sf::env
