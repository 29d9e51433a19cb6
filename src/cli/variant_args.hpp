#pragma once
// The variant options that render, variants and build share:
// -m FILE..., -e FILE..., --variant KEY=VALUE..., --platform SUBDIR, --strict.
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "variant/selection.hpp"

namespace sf::cli {

struct VariantArgs {
    std::vector<std::string> files;
    std::vector<std::string> exclusive_files;
    std::vector<std::string> overrides;
    std::string platform;  // empty: from the -m files' target_platform, else this machine
    bool strict = false;
    bool ignore_system_variants = false;

    enum class WithPlatform { yes, no };
    void add_to(CLI::App* sub, WithPlatform with_platform = WithPlatform::yes);
    // The one place the selection is made; throws Failure on a bad value.
    variant::Selection selection() const;
};

// A feedstock's own job configs, when the user gave no -m and no -e and the
// recipe has no variants/ beside it: each .ci_support/*.yaml next to
// `recipe_dir` whose target platform is the selected one (--platform, else
// this machine), in name order, as `args` plus that file. Empty otherwise.
std::vector<std::pair<std::string, VariantArgs>> ci_support_jobs(const std::string& recipe_dir, const VariantArgs& args);

}  // namespace sf::cli
