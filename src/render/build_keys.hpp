#pragma once
// The build/ keys of a meta.yaml output that conda-build 24.11's packaging
// reads (build.py create_post_scripts, get_files_with_prefix,
// record_prefix_files, write_no_link, bundle_conda's always_include_files),
// and the ones splitforge refuses to build rather than ignore.
#include <string>

#include "core/error.hpp"
#include "recipe/raw_recipe.hpp"
#include "render/meta.hpp"
#include "render/output.hpp"

namespace sf::render {

// Fills the packaging keys of `k` from an output's build section. `is_output`:
// conda-build's MetaData.is_output (an output not named like the package),
// which names its link scripts `<name>-<kind>.sh` or build/<kind>.
// `where` prefixes errors ("meta.yaml: name: ").
Result<void> packaging_keys(const Meta& build, bool is_output, const std::string& name, const std::string& where,
                            PostBuildKeys& k);

// Keys that change the package and that splitforge does not build:
// build/merge_build_host: true, build/preferred_env, build/pin_depends. The error names meta.yaml:line and the key.
Result<void> refuse_unbuilt_keys(const recipe::RawRecipe& raw, const Meta& build, const std::string& output);

}  // namespace sf::render
