#pragma once
// recipe.yaml (rattler-build's v1 format), stage 0: the YAML tree with
// file:line:col on every node, its sections checked against the schema's
// keys, nothing evaluated yet (`${{ }}`, `if:` and context stay as written).
// render/v1_render.cpp evaluates it into the same RenderedRecipe that
// meta.yaml gives.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "recipe/yaml_tree.hpp"

namespace sf::recipe {

struct V1Recipe {
    std::filesystem::path dir;
    std::string file;  // recipe.yaml as shown in messages
    YamlNode root;     // a mapping, checked by parse_v1_recipe
    // recipe/variants.yaml, else recipe/conda_build_config.yaml (the first
    // rattler-build finds), read before the -m files.
    std::optional<std::filesystem::path> variant_config;

    const YamlNode* section(std::string_view key) const { return root.find(key); }
    bool multi_output() const { return section("outputs") != nullptr; }
    SourceLoc at(const YamlNode& n) const { return SourceLoc{file, n.line + 1, n.col + 1}; }
};

// A directory holds a v1 recipe when it has recipe.yaml and no meta.yaml.
bool is_v1_recipe_dir(const std::filesystem::path& dir);

// Reads <dir>/recipe.yaml. Errors are one line: file:line:col and what was
// expected there.
Result<V1Recipe> load_v1_recipe(const std::filesystem::path& dir, Diagnostics* diag = nullptr);
Result<V1Recipe> parse_v1_recipe(const std::string& text, const std::string& file, Diagnostics* diag = nullptr);

// An `if:` item of a list or mapping (`- if: cond` / `then:` / `else:`).
bool is_conditional(const YamlNode& n);

}  // namespace sf::recipe
