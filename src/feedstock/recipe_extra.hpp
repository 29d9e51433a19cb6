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
//       output_keys: [with_magma]   # never split the staging build
//       use_keys: [...]             # always used (conda-build: force_use_keys)
//       ignore_keys: [...]          # never used (conda-build: force_ignore_keys)
//       lint_skip: [check-id, ...]  # lint checks to silence (see `splitforge lint`)
//
//       time_limit: {linux-64-cuda: 5h30m}  # or one duration: staging runs as
//                                           # chained --time-limit jobs
//       resume_jobs: 3              # resume jobs after the first (default 3)
//       ci_setup: [shell line, ...] # how a generated CI job gets splitforge
//       smoke: [spec, ...]          # the upload job installs these from the
//                                   # label it uploaded to and runs
//       smoke_script: smoke_test.py # (in the recipe dir; the default) with them
//
// A "<platform>-cuda" entry applies to that platform's CUDA jobs (those whose
// cuda_compiler_version is set and not None); it falls back to "<platform>",
// then "default".
// A `github_actions_labels` key in the variant config (conda-forge's way)
// wins over `runners` for the jobs it applies to.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/error.hpp"
#include "recipe/raw_recipe.hpp"
#include "recipe/v1_recipe.hpp"

namespace sf::feedstock {

// The `extra:` mapping for `subdir`, or a null node.
Result<YAML::Node> recipe_extra(const recipe::RawRecipe& raw, const std::string& subdir,
                                const std::map<std::string, std::string>& variant);

struct CiSettings {
    std::map<std::string, std::string> runners;  // platform or "default" -> label
    std::map<std::string, int> timeouts;         // platform or "default" -> minutes
    std::map<std::string, std::string> time_limits;  // platform or "default" -> "5h30m"
    int resume_jobs = 3;
    std::vector<std::string> setup;  // ci_setup lines
    std::vector<std::string> smoke;  // match specs; empty: no smoke step
    std::string smoke_script = "smoke_test.py";  // relative to the recipe dir
    enum class Gpu { no, cuda };
    std::string runner_for(const std::string& platform, Gpu gpu = Gpu::no) const;
    int timeout_for(const std::string& platform, Gpu gpu = Gpu::no) const;
    std::string time_limit_for(const std::string& platform, Gpu gpu = Gpu::no) const;  // "" when none
};

// "5h30m", "90m", "6h" (util::parse_duration) -> whole minutes, rounded up; -1 when it is not that form.
int duration_minutes(const std::string& text);

// Checks `extra: splitforge:` as written: unknown keys (with a did-you-mean),
// runners as labels, timeouts as whole positive minutes, platform names that
// exist, key lists as lists of names. Every problem is an error naming
// meta.yaml:line.
Result<void> validate_splitforge_extra(const recipe::RawRecipe& raw);
// The same for recipe.yaml's `extra:` (no selectors there).
Result<void> validate_splitforge_extra(const recipe::V1Recipe& r);
// The same for a recipe directory (nothing when it does not load: the render
// reports that).
Result<void> validate_splitforge_extra(const std::filesystem::path& recipe_dir);

// The `lint_skip` ids (validated), or none.
std::vector<std::string> lint_skip_ids(const recipe::RawRecipe& raw);
std::vector<std::string> lint_skip_ids(const recipe::V1Recipe& r);

Result<CiSettings> read_ci_settings(const recipe::RawRecipe& raw, const std::string& subdir,
                                    const std::map<std::string, std::string>& variant);
Result<CiSettings> read_ci_settings(const recipe::V1Recipe& r);

}  // namespace sf::feedstock
