#pragma once
// `splitforge lint RECIPE_DIR`: the checks that matter for split/megabuild
// recipes. The recipe is rendered for every platform; findings are the union.
//   error    a used key missing from the variants (render errors included,
//            e.g. an undefined selector name; a stale variants/ file)
//   warning  a variant key no platform uses (recipe cbc, variants/*.yaml)
//   error    a patch listed but missing;   warning  a patch present but unlisted
//   error    a url source without sha256 (warning when it only has md5)
//   warning  an output without a test
//   error    pin_subpackage() naming an output the recipe does not have
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::feedstock {

enum class Severity { error, warning };

struct Finding {
    SourceLoc loc;
    Severity severity = Severity::error;
    std::string message;
    std::string suggestion;
    std::string id;  // the check, e.g. "no-test": silenced with --skip or extra/splitforge/lint_skip
    // "file:line: error: message (suggestion) [id]"
    std::string str() const;
};

struct LintOptions {
    std::filesystem::path recipe_dir;
    // variants/ next to the recipe by default; checked when it exists.
    std::optional<std::filesystem::path> variants_dir;
    std::vector<std::string> platforms;  // empty: rerender's default platforms
    // What conda-build accepts with a warning (an unknown selector name, a
    // repeated key) is a warning finding, or an error under --strict.
    bool strict = false;
    std::vector<std::string> skip;  // check ids to silence (unknown ids are an error)
};

// Every check id, sorted.
const std::vector<std::string>& check_ids();

// Findings sorted by file, line, message. Errors only when the recipe cannot
// be read at all (a missing directory, no meta.yaml).
Result<std::vector<Finding>> lint(const LintOptions& opts);

}  // namespace sf::feedstock
