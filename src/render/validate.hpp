#pragma once
// Checks on what a recipe renders to, made as soon as it is rendered and
// before anything uses a name as a path: package names, versions and build
// strings follow types/identifiers.hpp's rules (CEP 26); build/number,
// outputs and requirements have the right shape. Internal to src/render/ (render and lint both see them).
#include <map>
#include <string>

#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "render/meta.hpp"
#include "render/output.hpp"

namespace sf::render {

// The rendered top-level dict of one variant.
Result<void> check_shape(const Meta& top, const std::string& file, Diagnostics& diag);
// Where an output's identifiers were written, for errors: recipe.yaml's
// nodes (file:line:col), or meta.yaml's file alone (its text is rendered
// Jinja, whose lines are not the recipe's).
struct IdentifierMarks {
    SourceLoc name, version, build_string, build_number;
    SourceLoc output;                            // the output itself: a default
    std::map<std::string, SourceLoc> env_keys;  // each key of script_env
    static IdentifierMarks file(const std::string& file);
};
// The identifiers of one rendered output, the one check of both front ends,
// made before anything uses them as a path or runs a script: name, version
// and build string by types/identifiers.hpp's rules, a build number >= 0
// (both front ends read it with types::parse_build_number, below 2^31),
// script env names that are shell variable names.
// `has_build_string`: false where none was computed (rerender's render).
// A build string already judged by check_computed_build_string (the output
// is unbuildable for it) is not judged again.
Result<void> check_identifiers(const RenderedOutput& o, const IdentifierMarks& at, bool has_build_string = true);
// A script's env names (an output's, or a staging output's); `where`
// goes in front of the message ("name: ").
Result<void> check_script_env(const std::map<std::string, std::string>& env, const IdentifierMarks& at,
                              const std::string& where);
// The recipe's own name and version (a multi-output recipe's, which the
// engine names its staging build and log after), where given.
Result<void> check_recipe_identity(const RenderedRecipe& rr, const SourceLoc& name_at, const SourceLoc& version_at);
// Two outputs of one rendering named alike: meta.yaml warns (conda-build
// builds one of them), recipe.yaml refuses.
Error duplicate_output(const std::string& name, const SourceLoc& at);
// A build string conda-build computed (no build/string): conda-build checks
// the characters of a manual one only (check_bad_chrs), so a host spec
// `python >=3.14.1` makes `py>=314h..._0`. Render keeps it with a warning
// (an error under --strict) and marks the output unbuildable, since no
// package may carry it; '/', '\\', '..' and control characters stay errors.
Result<void> check_computed_build_string(RenderedOutput& o, const std::string& file, Diagnostics& diag);

}  // namespace sf::render
