#pragma once
// Durations as CI configs and `--time-limit` write them: hours, minutes and
// seconds, each optional but in that order (5h30m, 90m, 45s, 1h0m30s).
#include <chrono>
#include <optional>
#include <string_view>

namespace sf::util {

// nullopt for anything else (empty, "330", "5h 30m", "1d").
std::optional<std::chrono::seconds> parse_duration(std::string_view text);

}  // namespace sf::util
