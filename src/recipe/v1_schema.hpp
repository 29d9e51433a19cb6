#pragma once
// The one table of recipe.yaml's keys, per section, as rattler-build's
// stage0 parser accepts them (crates/rattler_build_recipe/src/stage0/parser),
// and the walk that checks a recipe against it. Render refuses what the
// parser refuses (v1_recipe.cpp); lint reports it as findings, and also the
// keys the parser reads past without a word (lint_v1.cpp).
#include <string>
#include <string_view>
#include <vector>

#include "recipe/yaml_tree.hpp"

namespace sf::recipe::v1 {

// What rattler-build does with a key its section does not name.
enum class Refusal {
    parse_error,  // its parser stops with "unknown field"
    ignored,      // it parses the entry and never reads the key
};

struct KeyProblem {
    const YamlNode* at;  // the key (or, for a missing kind, the entry)
    Refusal refusal;
    std::string message;  // "unknown field 'hots' in requirements"
    std::string hint;     // "did you mean 'host'? valid fields are: ..."
    bool no_kind = false; // an entry (a source, a test) that is of no kind at all
};

// Every key below `root` (a recipe.yaml mapping) that its section does not
// name, and every source or test entry holding none of its kinds' keys, in
// document order. `if:`/`then:`/`else:` items are walked into both
// branches, as either may be taken for some variant.
std::vector<KeyProblem> check_keys(const YamlNode& root);

// The keys of a section ("build", "requirements", ...), for callers and
// tests; empty for a section the table does not have.
std::vector<std::string_view> section_keys(std::string_view section);

}  // namespace sf::recipe::v1
