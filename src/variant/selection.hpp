#pragma once
// What the user selected to render or build: the target platform, the -m
// variant files and --variant overrides. Built once by the CLI and held
// unchanged by render, plan and build; lint and rerender, which cover every
// platform, make one per platform.
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "types/platform.hpp"

namespace sf::variant {

struct SpecSource;

struct Selection {
    types::Platform platform;        // the target; this machine's by default
    types::Platform build_platform;  // where builds run: this machine
    std::vector<std::filesystem::path> exclusive_files;          // -e, in order
    std::vector<std::filesystem::path> variant_files;            // -m, in order
    // conda-build's system variant files, read after the defaults when no
    // -e file is given (v0 only; find_config_files): the user's
    // (condarc conda_build/config_file, else ~/conda_build_config.yaml) and
    // ./conda_build_config.yaml, those that exist. The CLI fills it unless
    // --ignore-system-variants (conda-smithy's ignore_system_variants).
    std::vector<std::filesystem::path> system_files;
    std::vector<std::pair<std::string, std::string>> overrides;  // --variant KEY=VALUE
    bool strict = false;  // --strict: what conda-build accepts with a warning is an error
    // A spec merged and migrated beforehand (conda-smithy's rerender): it
    // replaces the -e, recipe and -m files; the defaults still come first.
    std::shared_ptr<const SpecSource> spec;
    // Environment values the selectors and Jinja see over this process's
    // (recipe::EnvOverlay: conda-smithy's os.environ assignments), in the
    // order set. Nothing writes them into the process environment.
    std::vector<std::pair<std::string, std::string>> extra_environ;
    // `build --nightly`: YYYYMMDD. Every rendered version X.Y.Z becomes
    // X.Y.Z.devYYYYMMDD (nightly_version()), the pins between outputs too.
    std::string nightly;
};

// `version` as this selection builds it: itself, or its nightly form.
inline std::string nightly_version(const std::string& version, const Selection& sel) {
    return sel.nightly.empty() || version.empty() ? version : version + ".dev" + sel.nightly;
}

// The selection from command-line values. The platform is decided here and
// only here: `platform` when given (it must be a known subdir), else the
// single target_platform the -m files name (as conda-smithy's .ci_support
// files and our variants/ carry), else this machine. `overrides` are
// KEY=VALUE[,VALUE...] strings. `exclusive_files` are the -e files (read
// before the recipe's own config; a -m file's target_platform wins).
Result<Selection> select(std::string_view platform, std::vector<std::filesystem::path> variant_files,
                         const std::vector<std::string>& overrides,
                         std::vector<std::filesystem::path> exclusive_files = {});

}  // namespace sf::variant
