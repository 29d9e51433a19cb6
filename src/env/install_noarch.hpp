#pragma once
// noarch: python packages at link time, as conda links them (core/link.py,
// path_actions.py, common/path/python.py): `site-packages/X` lands in the
// environment Python's lib/pythonX.Y/site-packages/X, `python-scripts/X` in
// bin/X; info/link.json's entry points become bin/ launchers naming the
// environment's python (CreatePythonEntryPointAction); every .py moved into
// site-packages is compiled with `python -Wi -m compileall -q -l -i -`
// (CompileMultiPycAction) and its __pycache__ .pyc recorded ("pyc_file").
// Internal to src/env/.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "env/install_detail.hpp"
#include "types/entry_point.hpp"

namespace sf::env::detail {

// The X.Y of the Python the prefix holds once this transaction is done: the
// python package being linked, else the one installed (its dist name), else
// the one lib/pythonX.Y/site-packages of a Python the provider put there (a
// venv). nullopt when there is none, or more than one venv layout.
std::optional<std::string> target_python(const stdfs::path& prefix, const std::vector<CachedPackage>& to_link,
                                         const std::optional<std::string>& installed_python_dist);

// Where the Python with this record puts site-packages: CEP 17's
// python_site_packages_path (e.g. "lib/python3.13t/site-packages") when
// the record has one, else lib/pythonX.Y/site-packages. A value that is not
// a relative path inside the prefix is an error naming the package.
Result<std::string> site_packages_dir(const nlohmann::json& python_record, const std::string& dist,
                                      const std::string& minor);

// conda's get_python_noarch_target_path; `site_packages` "lib/pythonX.Y/site-packages".
std::string noarch_target(const std::string& rel, const std::string& site_packages);

// The entry points of a noarch: python package (its info/link.json; none
// without one). A malformed one is an error naming the package.
Result<std::vector<types::EntryPoint>> noarch_entry_points(const CachedPackage& pkg);

// One package's part of the compile step: its records to extend, and the
// .py files (prefix paths) it put into site-packages.
struct PycJob {
    nlohmann::json* files = nullptr;
    nlohmann::json* paths = nullptr;  // conda-meta paths_data.paths
    std::vector<std::string> py;
};

// Compiles every job's .py files in one run of the prefix's bin/pythonX.Y,
// after reserving each .pyc with the transaction (so a rollback removes
// it); records the .pyc files that appeared. A .py that does not compile is
// a warning, as in conda (returned), never a failed install.
Result<std::vector<std::string>> compile_pycs(Transaction& tx, const stdfs::path& prefix, const std::string& minor,
                                              std::vector<PycJob>& jobs);

}  // namespace sf::env::detail
