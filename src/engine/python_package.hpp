#pragma once
// The system provider's Python as real conda packages, so that a local
// channel of per-Python outputs is installable and solvable on its own (by
// stock conda too): python-X.Y.Z-0_system, made from the discovered
// interpreter's own prefix (a pyenv version dir): bin/, include/,
// lib/libpython*, lib/pythonX.Y (without test suites, idle/tkinter,
// __pycache__, site-packages contents and the static libpython), RPATHs made
// $ORIGIN-relative, text files with the interpreter prefix as a placeholder;
// and its pip beside it (pip-V-0_system, below). Interpreters living in a
// system prefix (/usr, /usr/local) are refused: their files are not separable.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "env/python_env.hpp"
#include "types/platform.hpp"

namespace sf::engine {

std::string python_package_build();  // "0_system"

// A package named `name` (of version `minor` or minor.*, when given) in one
// of `channels` (local dirs: their repodata.json for `platform` and noarch),
// other than these exports (build 0_system): the channel's real package
// wins, and no host stand-in is exported beside it.
bool channels_have(const std::vector<std::filesystem::path>& channels, const types::Platform& platform,
                   const std::string& name, const std::string& minor = {});

// The package's path when already in the channel, else "".
std::filesystem::path python_package_in(const std::filesystem::path& channel, const types::Platform& platform,
                                        const env::Interpreter& py);

// Makes the package under `work` and adds it to `channel` (unless there).
Result<std::filesystem::path> export_python(const env::Interpreter& py, const std::filesystem::path& channel,
                                            const types::Platform& platform, const std::filesystem::path& work);

// The interpreter's own pip (site-packages/pip and its one pip-V.dist-info).
struct HostPip {
    std::string version;          // "23.2.1", from the dist-info's name
    std::filesystem::path site;   // <prefix>/lib/pythonX.Y/site-packages
    std::string dist_info;        // "pip-23.2.1.dist-info"
};
std::optional<HostPip> host_pip(const env::Interpreter& py);

// conda adds pip to python's depends (add_pip_as_python_dependency, on by
// default), so a channel with python and no pip does not solve with stock
// conda. The host's pip as a noarch: python package pip-V-0_system:
// site-packages/pip and its dist-info as the interpreter has them (no .pyc;
// INSTALLER says conda, as conda-build writes it), its pip and pip3 entry
// points in info/link.json, depending on python with pip's Requires-Python.
// The package's path in `channel` (made unless there).
std::filesystem::path pip_package_in(const std::filesystem::path& channel, const HostPip& pip);
Result<std::filesystem::path> export_pip(const env::Interpreter& py, const HostPip& pip,
                                         const std::filesystem::path& channel, const std::filesystem::path& work);

// A run dependency the host meets (libgcc-ng, libstdcxx-ng: the compilers'
// run_exports) as an empty package NAME-VERSION-0_system, VERSION the host
// compiler's, so that the channel is installable and solvable on its own
// (conda-check, `splitforge install`), as with Python. Unless there.
// `timestamp_ms`: the build's reproducible timestamp (repodata wants one > 0).
Result<std::filesystem::path> export_host_runtime(const std::string& name, const std::string& version,
                                                  const std::filesystem::path& channel,
                                                  const types::Platform& platform, const std::filesystem::path& work,
                                                  std::optional<std::int64_t> timestamp_ms);

}  // namespace sf::engine
