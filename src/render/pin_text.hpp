#pragma once
// How a pin crosses the rendered text. A v0 recipe is Jinja text that is
// rendered, then parsed as YAML, so pin_subpackage()/pin_compatible() can
// only return text: they return the pinned name followed by a placeholder
// holding the pin's arguments. conda-build instead renders the whole recipe
// a second time once the outputs are known; the placeholder saves that pass.
// It never leaves render/: to_output() turns each one into a types::Pin.
#include <optional>
#include <string>
#include <string_view>

#include "types/dependency.hpp"

namespace sf::render {

std::string pin_placeholder(const types::Pin& p);  // "name @@sf-pin:...@@"
std::optional<types::Pin> read_pin_placeholder(std::string_view spec);
// The spec as conda-build prints it before finalizing: the placeholder dropped.
std::string strip_pin_placeholder(const std::string& spec);

}  // namespace sf::render
