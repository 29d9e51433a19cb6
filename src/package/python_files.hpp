#pragma once
// What conda-build and rattler-build do to an output's Python files after
// its script ran and before the package is written, on the payload (the
// output's new files, relative to it):
//   conda-build (build.py post_process_files, post.py post_process,
//   noarch_python.populate_files): entry points written to bin/ (not for
//   noarch: python), .pyo and .opt-N.pyc removed, .pyc removed for noarch
//   outputs and compiled otherwise (`python -Wi -m py_compile`, every .py
//   outside bin/ not matched by build/skip_compile_pyc), a dist-info's
//   INSTALLER says "conda", share/info/dir removed; noarch: python then moves
//   `.../site-packages/X` to `site-packages/X` and bin/ scripts to
//   python-scripts/ (a binary one is an error), drops .pyc, .pyo, .egg-info
//   files and the entry points' scripts;
//   rattler-build (post_process/python.rs, packaging/file_mapper.rs): the
//   same, with its differences: .py/.pyc beside an .so of the same stem
//   dropped, a .py compiled only without a .pyc already, entry points after
//   compiling (rattler's launcher), noarch: python keeps bin/'s subfolders
//   under python-scripts/, drops every __pycache__ and accepts binary scripts.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "process/process.hpp"
#include "types/entry_point.hpp"
#include "types/recipe_values.hpp"

namespace sf::package {

enum class PythonRules { conda_build, rattler_build };

struct PythonFilesOptions {
    PythonRules rules = PythonRules::conda_build;
    types::NoArch noarch = types::NoArch::none;
    std::vector<types::EntryPoint> entry_points;
    std::vector<std::string> skip_compile;  // globs over payload paths; `*` crosses '/'
    // The interpreter .pyc files are compiled with (the build's host or
    // build env python); empty or missing: nothing is compiled, as in
    // conda-build without a python.
    std::filesystem::path python;
    // What an entry point's shebang names: conda-build: <host prefix>/bin/python;
    // rattler-build: <host prefix>/bin/pythonX.Y.
    std::string entry_python;
    // conda-build's fix_shebang (post_build) for bin/: a script's
    // `#!.../python` or `#!.../pythonw` shebang names this instead
    // (<host prefix>/bin/python), and each text file there gets mode 0775.
    // Empty: not done (rattler-build does it only for macOS app entry points).
    std::string shebang_python;
    // Each .py compiled gets this mtime first: the package's, so a pyc's
    // recorded source mtime is the one the installed .py has (its archive's).
    std::int64_t mtime = 0;
    process::Env env;  // the compiler's environment
};

struct PythonFilesReport {
    std::vector<std::string> files;     // the payload's files afterwards, sorted
    std::vector<std::string> compiled;  // the .pyc files made
    std::vector<std::string> warnings;  // a .py that did not compile (as conda-build, not fatal)
};

// Applies the rules above to `payload`, whose files are `files`.
Result<PythonFilesReport> python_files(const std::filesystem::path& payload, std::vector<std::string> files,
                                       const PythonFilesOptions& opts);

// info/link.json as each tool writes it ("" when it writes none):
// conda-build: every noarch output, keys sorted, entry_points only when there are some;
// rattler-build: noarch: python outputs, serde's order ("type" first).
std::string link_json(types::NoArch noarch, const std::vector<types::EntryPoint>& entry_points, PythonRules rules);

}  // namespace sf::package
