#pragma once
// RawRecipe x variant configs -> RenderedRecipe: every package the recipe
// produces for one platform, with conda-build's hashes and build strings.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "recipe/raw_recipe.hpp"
#include "render/output.hpp"
#include "variant/selection.hpp"

namespace sf::render {

// What several renders of one recipe can share (one per platform, say):
// parsed templates and selectors, YAML pieces, text scans. Tied to the
// RawRecipe it was first used with; a different recipe starts it afresh.
struct RenderCache;
std::shared_ptr<RenderCache> make_render_cache();

// How conda-smithy renders (rerender of a feedstock): undefined Jinja names
// render as "" (permit_undefined_jinja), used keys follow the conda-build
// that conda-smithy runs today (variant::ScanRules), and each output gets
// RenderedOutput::top_level_used; hashes, build strings and requirements
// are left empty (nothing is finalized).
struct RenderOptions {
    bool smithy = false;
};

Result<RenderedRecipe> render(const recipe::RawRecipe& raw, const variant::Selection& sel,
                              RenderCache* cache = nullptr, RenderOptions opts = {});

// Where each used key of `rr` is first used (file:line), for `variants`:
// the selector scan first, then the full scan, then the scripts.
std::map<std::string, SourceLoc> key_uses(const recipe::RawRecipe& raw, const RenderedRecipe& rr);

// Load the recipe directory, whichever format it holds (recipe.yaml when it
// has one and no meta.yaml: render_v1), then render it.
Result<RenderedRecipe> render_dir(const std::filesystem::path& dir, const variant::Selection& sel);

}  // namespace sf::render
