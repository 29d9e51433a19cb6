#pragma once
// `splitforge inspect`: a package's metadata and file list, as JSON or text.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace sf::package {

// {"file", "index", "about", "run_exports", "paths": [{"_path", "path_type", ...}]}
// paths come from info/paths.json, or info/files for old packages.
Result<nlohmann::json> inspect_package(const std::filesystem::path& pkg);

// Human-readable form of inspect_package()'s result.
std::string format_inspection(const nlohmann::json& j);

}  // namespace sf::package
