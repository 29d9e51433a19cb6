#pragma once
// A Python entry point ("name = package.module:func"): `build/entry_points`
// of a meta.yaml, `build.python.entry_points` of a recipe.yaml, the
// entry_points of a noarch: python package's info/link.json. The launcher
// script each tool writes for one is text built here, so that the packager
// (at build time) and the installer (at link time) write the same bytes as
// conda-build, rattler-build and conda do.
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace sf::types {

struct EntryPoint {
    std::string command;  // the script's name under bin/
    std::string module;   // "package.module"
    std::string func;     // "main" or "Class.method"
    std::string text;     // as the recipe wrote it (info/link.json keeps it so)
};

// conda-build's entry_pat: `name = module:func`, the name of word
// characters, '-' and '.', module and func dotted words. Anything else is an
// error naming the text.
Result<EntryPoint> parse_entry_point(std::string_view text);

// Whose launcher to write; each differs in a byte or two.
enum class LauncherStyle {
    conda_build,    // create_entry_point: "#!PYTHON\n", a blank line, 4-space indent
    rattler_build,  // rattler's python_entry_point_template: tab indent, a long or spaced shebang wrapped
    conda,          // conda's create_python_entry_point at link time: as conda-build, no blank line,
                    // a long (> 127 bytes) or spaced shebang wrapped
};

// The whole script for `ep`, run by the interpreter at `python` (absolute).
std::string entry_point_script(const EntryPoint& ep, const std::string& python, LauncherStyle style);

}  // namespace sf::types
