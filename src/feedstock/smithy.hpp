#pragma once
// conda-smithy's .ci_support/*.yaml for a conda-forge feedstock: the same
// file names and the same content (keys, values and their order, zip_keys,
// pin_run_as_build, docker_image, ...), computed from the same inputs:
// recipe/, conda-forge.yml, the global pinning (-e) and
// .ci_support/migrations/. The rules are conda-smithy's
// configure_feedstock.py, written in our own terms:
//   1. per target platform, the pinning and the recipe's config are merged,
//      the migrations laid over them (migrations.hpp), and the recipe is
//      rendered with that spec, every output, nothing finalized;
//   2. the keys any output uses (plus the always-kept ones) keep the values
//      the unskipped outputs were rendered with;
//   3. the keys every output uses at the top level and that vary become CI
//      jobs, one file per combination (zip partners move together); every
//      other key keeps all its values inside each file.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf::feedstock {

struct SmithyOptions {
    std::filesystem::path feedstock_dir;
    std::vector<std::filesystem::path> exclusive_files;  // -e: conda-forge's pinning
    std::vector<std::string> platforms;  // only these targets (linux-64 or linux_64); empty: all
    bool strict = false;
    // The conda-smithy whose output to reproduce (its rules changed over
    // time); empty: the newest rules. Before 3.48.0 true/false stay strings;
    // before 3.52.3 cdt_name, cdt_arch and BUILD are always kept; before
    // 3.58.1 github_actions_labels only with github_actions.self_hosted.
    std::string smithy_version;
};

struct SmithyFile {
    std::string name;    // linux_64_python3.12.____cpython.yaml
    std::string target;  // linux_64
    std::string text;    // the YAML, as conda-smithy's yaml.dump writes it
};

struct SmithyResult {
    std::vector<SmithyFile> files;          // sorted by name
    std::vector<std::string> targets;       // every target rendered (conda-smithy names)
    std::vector<std::string> empty_targets; // rendered, but no output is left for them
    std::vector<Error> warnings;
    std::string migrations;  // "migrations: 2 from ...": where the migration files came from
};

// True when `dir` is a feedstock (holds recipe/meta.yaml or recipe/recipe.yaml),
// not a recipe.
bool is_feedstock_dir(const std::filesystem::path& dir);

// conda-smithy keeps python_min in every job of a recipe whose text names
// `{{ python_min }}` (its `.*\{\{ python_min \}\}` on each line, verbatim,
// so v1's `${{ python_min }}` counts too), whatever the render used.
bool keeps_python_min(std::string_view recipe_text);

Result<SmithyResult> smithy_configs(const SmithyOptions& opts);

// PyYAML's plain-or-quoted choice for one string (yaml.dump's output);
// `bools`: "true"/"false" written as YAML booleans (conda-smithy >= 3.48).
std::string yaml_scalar(const std::string& s, bool bools = true);

}  // namespace sf::feedstock
