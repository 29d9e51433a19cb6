#pragma once
// The files of one upload, read and checked before anything is sent
// (internal to publish/): conda packages with their repodata records, or
// wheels with their core metadata; never both.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace sf::publish::detail {

struct Item {
    std::filesystem::path file;
    std::string key;  // "<subdir>/<file>" for a conda package, "<file>" for a wheel
    std::string sha256, md5;
    std::uint64_t size = 0;
    nlohmann::json record;  // conda: its repodata record
    std::string metadata;   // wheel: its METADATA (the PEP 658 file)
};

struct Plan {
    enum class Kind { conda, wheels } kind = Kind::conda;
    std::vector<Item> items;
};

Result<Plan> plan_upload(const std::vector<std::filesystem::path>& files);

}  // namespace sf::publish::detail
