#pragma once
// The one timestamp policy for what splitforge makes (index.json timestamps,
// archive member mtimes): SOURCE_DATE_EPOCH when set, else the newest mtime
// of the inputs, never the clock, so rebuilds are byte-identical.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace sf::timestamp {

// SOURCE_DATE_EPOCH (seconds) when it is a non-negative decimal integer;
// nullopt when it is unset, empty or anything else (read as unset).
std::optional<std::int64_t> source_date_epoch();

// Seconds since the epoch: source_date_epoch() when valid, else the newest
// mtime among `inputs`, else 0. An input that is a directory (or a link to
// one) stands for the files and symlinks under it (links not followed, .git
// skipped); any other input for itself (lstat: a symlink's own mtime); a
// missing one for nothing.
std::int64_t reproducible(const std::vector<std::filesystem::path>& inputs);

}  // namespace sf::timestamp
