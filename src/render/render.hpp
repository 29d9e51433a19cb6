#pragma once
// RawRecipe x variant configs -> RenderedRecipe: every package the recipe
// produces for one platform, with conda-build's hashes and build strings.
#include <filesystem>
#include <memory>
#include <optional>
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

// What several renders of one recipe can share (one per platform, say):
// parsed templates and selectors, YAML pieces, text scans. Tied to the
// RawRecipe it was first used with; a different recipe starts it afresh.
struct RenderCache;
std::shared_ptr<RenderCache> make_render_cache();

Result<RenderedRecipe> render(const recipe::RawRecipe& raw, const RenderOptions& opts,
                              RenderCache* cache = nullptr);

// The target platform a set of -m files names (a single `target_platform`
// value, as conda-smithy's .ci_support files and our variants/ carry), or
// nullopt. Lets `render -m variants/osx_arm64_....yaml` work without --platform.
std::optional<std::string> platform_from_variant_files(const std::vector<std::filesystem::path>& files);

// Convenience: load the recipe directory, then render it.
Result<RenderedRecipe> render_dir(const std::filesystem::path& dir, const RenderOptions& opts);

}  // namespace sf::render
