#pragma once
// Safe extraction of a plain zip (a wheel, a libtorch archive): the same
// TreeWriter checks as packages (relative names without "..", nothing written
// through a symlink, no devices, a byte budget against bombs), into a
// directory that appears whole or not at all.
#include <cstdint>
#include <filesystem>

#include "core/error.hpp"

namespace sf::archive {

// Extracts `zip` into `dest`, which must not exist yet. Errors name the zip.
Result<void> extract_zip(const std::filesystem::path& zip, const std::filesystem::path& dest);

}  // namespace sf::archive

namespace sf::archive {

// The bytes of the one member of `zip` whose name `pick` accepts (none or
// two is an error naming the zip), stored or deflated, checked against its
// CRC-32 and size; at most `max_bytes`. A wheel's METADATA, without
// extracting the wheel.
Result<std::string> read_zip_member(const std::filesystem::path& zip, bool (*pick)(const std::string& name),
                                    std::uint64_t max_bytes, const std::string& what);

}  // namespace sf::archive
