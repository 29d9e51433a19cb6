#pragma once
// The fields rattler-build's recipe parser accepts in recipe.yaml (v1), per
// section, as its parser's field lists name them (crates/rattler_build_recipe,
// stage0/parser). A section maps each key to the section its value is read
// as ("" : any value, not checked further).
#include <string_view>
#include <utility>
#include <vector>

namespace sf::feedstock::v1 {

struct Field {
    std::string_view key;
    std::string_view section;  // what the value is read as; "" accepts anything
};

// The fields of `section` ("recipe", "build", "about", ...), or null when the
// section is unknown (never: every section named in the table is in it).
const std::vector<Field>* fields_of(std::string_view section);

// The section of an `outputs:` item: a staging output (`staging:`) or a
// package output.
std::string_view output_section(bool staging);

}  // namespace sf::feedstock::v1
