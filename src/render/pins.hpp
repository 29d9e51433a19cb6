#pragma once
// The version arithmetic of pin_subpackage / pin_compatible (the markers
// themselves are types/pin.hpp).
#include <string>

namespace sf::render {

// conda-build's apply_pin_expressions: ("2.13.0", "x.x.x.x.x.x", "x.x")
// -> ">=2.13.0,<2.14.0a0".
std::string apply_pin_expressions(const std::string& version, const std::string& min_pin,
                                  const std::string& max_pin);

// conda-build's ensure_valid_spec: "gxx_linux-64 13" -> "gxx_linux-64 13.*".
std::string ensure_valid_spec(const std::string& spec);
std::string ensure_valid_spec_by_regex(const std::string& spec);  // the same by conda-build's regex, for tests

}  // namespace sf::render
