#pragma once
// The recipe's `extra:` section, read with selectors applied (it holds no
// Jinja in practice; a section that does not parse counts as absent), and
// the CI settings rerender takes from it:
//
//   extra:
//     splitforge:
//       runners: {linux-64: cirun-cpu, linux-64-cuda: cirun-gpu, default: ubuntu-latest}
//       timeout_minutes: {linux-64: 900, default: 360}   # or one number
//
// A "<platform>-cuda" entry applies to that platform's CUDA jobs (those whose
// cuda_compiler_version is set and not None); it falls back to "<platform>",
// then "default".
// A `github_actions_labels` key in the variant config (conda-forge's way)
// wins over `runners` for the jobs it applies to.
#include <map>
#include <string>

#include <yaml-cpp/yaml.h>

#include "core/error.hpp"
#include "recipe/raw_recipe.hpp"

namespace sf::feedstock {

// The `extra:` mapping for `subdir`, or a null node.
Result<YAML::Node> recipe_extra(const recipe::RawRecipe& raw, const std::string& subdir,
                                const std::map<std::string, std::string>& variant);

struct CiSettings {
    std::map<std::string, std::string> runners;  // platform or "default" -> label
    std::map<std::string, int> timeouts;         // platform or "default" -> minutes
    enum class Gpu { no, cuda };
    std::string runner_for(const std::string& platform, Gpu gpu = Gpu::no) const;
    int timeout_for(const std::string& platform, Gpu gpu = Gpu::no) const;
};

Result<CiSettings> read_ci_settings(const recipe::RawRecipe& raw, const std::string& subdir,
                                    const std::map<std::string, std::string>& variant);

}  // namespace sf::feedstock
