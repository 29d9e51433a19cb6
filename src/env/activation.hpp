#pragma once
// What conda's `activate` sources for a prefix: etc/conda/activate.d/*.sh,
// in the order it sources them, each with the package that installed it
// (from conda-meta), so a script that fails can be named with its package.
#include <filesystem>
#include <string>
#include <vector>

namespace sf::env {

struct ActivateScript {
    std::filesystem::path path;  // absolute
    std::string package;         // the conda-meta record listing it; "" when none does
};

// conda/activate.py's _get_activate_scripts: the entries of
// PREFIX/etc/conda/activate.d ending in ".sh", sorted by path as Python
// sorts strings (byte order). No directory: none.
std::vector<ActivateScript> activate_scripts(const std::filesystem::path& prefix);

}  // namespace sf::env
