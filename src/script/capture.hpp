#pragma once
// File capture for split outputs: snapshot a prefix, and after an output's
// script ran, its payload is the new files (conda-build's rule), or, when the
// output lists `files:`, the files matching those paths/globs.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::script {

// Every file and symlink under `prefix`, relative, sorted ("lib/libfoo.so").
std::set<std::string> snapshot(const std::filesystem::path& prefix);

// Files a package never holds, as conda-build's utils.filter_files drops
// them: anything in a .git dir (or named .git), .DS_Store, libtool's *.la,
// conda-meta*, *.conda_trash(_N)*.
bool conda_build_drops(const std::string& rel);

// Files present now that were not in `before` (all of them: conda-build
// copies the top-level build's new files, *.la too, into later outputs' prefixes).
std::vector<std::string> new_files(const std::filesystem::path& prefix, const std::set<std::string>& before);

// What of `files` a package holds: less what conda_build_drops().
std::vector<std::string> package_files(std::vector<std::string> files);

// Does `rel` match one of the patterns? A pattern is a path, a directory
// (everything below it), or a glob (`*`, `?`, `[...]`; `**` crosses '/').
bool matches_any(const std::string& rel, const std::vector<std::string>& patterns);

// Keeps the files matching `patterns`.
std::vector<std::string> select_files(const std::vector<std::string>& files, const std::vector<std::string>& patterns);

// Copies `files` (relative to `from`) into `to`, keeping symlinks as links
// and permissions. `to` is created; below it nothing is written or removed
// through a symlink leading out of `to` (refused, naming the path; one
// staying inside is followed), and a directory in the way of a file is refused.
Result<void> copy_files(const std::filesystem::path& from, const std::vector<std::string>& files,
                        const std::filesystem::path& to);

}  // namespace sf::script
