#pragma once
// RawRecipe x variant configs -> RenderedRecipe: every package the recipe
// produces for one platform, with conda-build's hashes and build strings.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "recipe/raw_recipe.hpp"
#include "render/output.hpp"

namespace sf::render {

struct RenderOptions {
    std::string subdir = "linux-64";  // target platform
    std::string build_subdir;         // defaults to subdir
    std::vector<std::filesystem::path> variant_files;             // -m
    std::vector<std::pair<std::string, std::string>> overrides;   // --variant KEY=VALUE
};

Result<RenderedRecipe> render(const recipe::RawRecipe& raw, const RenderOptions& opts);

// Convenience: load the recipe directory, then render it.
Result<RenderedRecipe> render_dir(const std::filesystem::path& dir, const RenderOptions& opts);

}  // namespace sf::render
