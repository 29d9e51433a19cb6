#pragma once
// `splitforge lint` on a recipe.yaml (v1, rattler-build's format). What it
// checks, without rendering:
//   error    a field rattler-build's parser refuses (recipe/v1_schema's
//            table, the one render checks too)
//   warning  a field rattler-build parses past and never reads (a python
//            test's siblings of `python:`)
//   error    a name in `${{ }}`, `if:` or `skip:` that is neither in the
//            context, a variant file (the recipe's variants.yaml or
//            conda_build_config.yaml, the CI files of --variants-dir or the
//            feedstock's .ci_support/), nor one rattler-build defines
//            (target_platform, linux, x86_64, compiler(), ...); a warning when
//            there are no CI variant files to tell (the global pinning's keys)
//   error    pin_subpackage() naming an output the recipe does not have
//   error    a patch listed but missing
//   error    a sha256 (md5) that is not 64 (32) hex digits; a url source
//            without sha256 (warning when it only has md5)
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "feedstock/lint.hpp"

namespace sf::feedstock {

struct V1Lint {
    std::vector<Finding> findings;  // unsorted
    std::vector<std::string> skip;  // extra/splitforge/lint_skip
};

// The findings for the recipe.yaml in opts.recipe_dir; an error only when it
// cannot be read or is not YAML.
Result<V1Lint> lint_v1(const LintOptions& opts);

}  // namespace sf::feedstock
