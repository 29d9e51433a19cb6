#pragma once
// Safe extraction of a plain zip (a wheel, a libtorch archive): the same
// TreeWriter checks as packages (relative names without "..", nothing written
// through a symlink, no devices, a byte budget against bombs), into a
// directory that appears whole or not at all.
#include <filesystem>

#include "core/error.hpp"

namespace sf::archive {

// Extracts `zip` into `dest`, which must not exist yet. Errors name the zip.
Result<void> extract_zip(const std::filesystem::path& zip, const std::filesystem::path& dest);

}  // namespace sf::archive
