#pragma once
// The variant options that render, variants and build share:
// -m FILE..., -e FILE..., --variant KEY=VALUE..., --platform SUBDIR, --strict.
#include <string>
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

    enum class WithPlatform { yes, no };
    void add_to(CLI::App* sub, WithPlatform with_platform = WithPlatform::yes);
    // The one place the selection is made; throws Failure on a bad value.
    variant::Selection selection() const;
};

}  // namespace sf::cli
