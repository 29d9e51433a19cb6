#pragma once
// The system provider's Python as a real conda package, so that a local
// channel of per-Python outputs is installable and solvable on its own:
// python-X.Y.Z-0_system, made from the discovered interpreter's own prefix
// (a pyenv version dir): bin/, include/, lib/libpython*, lib/pythonX.Y
// (without test suites, idle/tkinter, __pycache__, site-packages contents and
// the static libpython), RPATHs made $ORIGIN-relative, text files with the
// interpreter prefix as a placeholder. Interpreters living in a system prefix
// (/usr, /usr/local) are refused: their files are not separable.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "env/python_env.hpp"
#include "types/platform.hpp"

namespace sf::engine {

std::string python_package_build();  // "0_system"

// The package's path when already in the channel, else "".
std::filesystem::path python_package_in(const std::filesystem::path& channel, const types::Platform& platform,
                                        const env::Interpreter& py);

// Makes the package under `work` and adds it to `channel` (unless there).
Result<std::filesystem::path> export_python(const env::Interpreter& py, const std::filesystem::path& channel,
                                            const types::Platform& platform, const std::filesystem::path& work);

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
