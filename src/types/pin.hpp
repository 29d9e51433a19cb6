#pragma once
// pin_subpackage / pin_compatible markers. During rendering the Jinja
// functions emit a marker after the package name; once every output's
// version and build string are known, the renderer replaces the markers with
// real bounds.
#include <optional>
#include <string>

namespace sf::types {

struct PinMarker {
    enum class Kind { subpackage, compatible } kind = Kind::subpackage;
    std::string name, min_pin, max_pin, lower_bound, upper_bound;
    bool exact = false;
};

std::string encode_pin(const PinMarker& m);           // "name @@pin:...@@"
std::optional<PinMarker> decode_pin(const std::string& spec);
// The spec as conda-build prints it before finalizing: just the name.
std::string strip_pin(const std::string& spec);

}  // namespace sf::types
