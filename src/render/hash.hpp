#pragma once
// PKG_HASH exactly as conda-build computes it:
//   "h" + sha1(json.dumps(d, sort_keys=True)).hexdigest()[:7]
#include <string>

#include <nlohmann/json.hpp>

namespace sf::render {

// Python's json.dumps(value, sort_keys=True): ", " and ": " separators,
// ensure_ascii (non-ASCII as \uXXXX, surrogate pairs above U+FFFF).
std::string python_json_dumps(const nlohmann::json& value);

// "" for an empty dict, else "h" + 7 hex digits.
std::string pkg_hash(const nlohmann::json& hash_input);

}  // namespace sf::render
