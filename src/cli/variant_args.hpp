#pragma once
// The variant options that render, variants and build share:
// -m FILE..., --variant KEY=VALUE..., --platform SUBDIR.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "render/render.hpp"

namespace sf::cli {

struct VariantArgs {
    std::vector<std::string> files;
    std::vector<std::string> overrides;
    std::string platform;  // empty: from the -m files' target_platform, else linux-64

    void add_to(CLI::App* sub, bool with_platform = true);
    std::vector<std::filesystem::path> file_paths() const;
    // KEY=VALUE pairs; throws Failure naming a malformed one.
    std::vector<std::pair<std::string, std::string>> parsed_overrides() const;
    std::string subdir() const;
    // All three, for the renderer.
    render::RenderOptions render_options() const;
};

}  // namespace sf::cli
