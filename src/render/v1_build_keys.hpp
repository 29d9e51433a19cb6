#pragma once
// recipe.yaml's build keys that change the package and that splitforge's
// build does not honour yet: an output setting one is unbuildable (render,
// lint and rerender read past it, as they do build.steps).
#include <string>

#include "recipe/v1_recipe.hpp"

namespace sf::render {

// The refusal for the first such key the output's own build section, then
// the top level's, sets ("file:line:col: build.<key> ..."); "" when none:
// prefix_detection, always_include_files, always_copy_files,
// dynamic_linking, post_process, files, flags, and merge_build_and_host_envs
// unless false.
std::string v1_unbuilt_build_keys(const recipe::V1Recipe& r, const recipe::YamlNode* top_build,
                                  const recipe::YamlNode* own_build);

}  // namespace sf::render
