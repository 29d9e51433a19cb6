#pragma once
// pin_subpackage / pin_compatible. During rendering the Jinja functions emit
// a marker after the package name; once every output's version and build
// string are known, resolve_pins() replaces the markers with real bounds.
#include <optional>
#include <string>

namespace sf::render {

// conda-build's apply_pin_expressions: ("2.13.0", "x.x.x.x.x.x", "x.x")
// -> ">=2.13.0,<2.14.0a0".
std::string apply_pin_expressions(const std::string& version, const std::string& min_pin,
                                  const std::string& max_pin);

// conda-build's ensure_valid_spec: "gxx_linux-64 13" -> "gxx_linux-64 13.*".
std::string ensure_valid_spec(const std::string& spec);

struct PinMarker {
    enum class Kind { subpackage, compatible } kind = Kind::subpackage;
    std::string name, min_pin, max_pin, lower_bound, upper_bound;
    bool exact = false;
};

std::string encode_pin(const PinMarker& m);           // "name @@pin:...@@"
std::optional<PinMarker> decode_pin(const std::string& spec);
// The spec as conda-build prints it before finalizing: just the name.
std::string strip_pin(const std::string& spec);

}  // namespace sf::render
