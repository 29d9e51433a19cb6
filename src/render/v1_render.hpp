#pragma once
// recipe.yaml (v1) x variant configs -> RenderedRecipe, as rattler-build
// renders it: the matrix over the keys the recipe can read, one evaluation
// per combination, used variables as evaluation read them, hashes and build
// strings (stage1/hash.rs, BuildString::resolve).
#include <map>
#include <string>

#include "recipe/v1_recipe.hpp"
#include "render/output.hpp"
#include "variant/selection.hpp"

namespace sf::render {

Result<RenderedRecipe> render_v1(const recipe::V1Recipe& r, const variant::Selection& sel);

// Where each used key of `rr` is first read (file:line:col of the expression,
// condition, free spec or pin), for `splitforge variants`.
std::map<std::string, SourceLoc> v1_key_uses(const recipe::V1Recipe& r, const RenderedRecipe& rr);

// rattler-build's hash input: the used variant as JSON with Python's
// separators (", ", ": "), keys normalized (`-` and `.` read as `_`) and sorted.
std::string v1_hash_input(const nlohmann::json& used);
// "{prefix}" of the default build string (py312, np2py311, ...), or "py" for noarch: python.
std::string v1_hash_prefix(const nlohmann::json& used, bool noarch_python);

}  // namespace sf::render
