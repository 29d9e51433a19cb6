#pragma once
// A minimal package reader for index and inspect: the contents of chosen
// info/ files of a .conda or .tar.bz2, without extracting the payload.
// (The installer's full extractor lives in archive/read.)
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::package {

enum class PackageKind { conda, tar_bz2 };

// ".conda" or ".tar.bz2" by file name; an error for anything else.
Result<PackageKind> package_kind(const std::filesystem::path& p);

// The file name without its package extension: "x-1.0-0.conda" -> "x-1.0-0".
std::string package_stem(const std::filesystem::path& p);

// Reads the named members (e.g. "info/index.json"); stops once all are
// found. Missing names are simply absent from the result.
Result<std::map<std::string, std::string>> read_info_files(const std::filesystem::path& pkg,
                                                           const std::vector<std::string>& names);

}  // namespace sf::package
