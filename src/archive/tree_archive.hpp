#pragma once
// A directory tree as one .tar.zst that keeps what a later build needs of
// it: each file's mtime (Times::kept) and every directory. Staging archives
// (engine/staging_archive.hpp) carry a build tree between CI jobs this way.
// Extraction applies the package rules (archive/extract.hpp): no member
// escapes the destination.
#include <filesystem>
#include <string>
#include <vector>

#include "archive/write.hpp"
#include "core/error.hpp"

namespace sf::archive {

// Every file, symlink and directory under `root`, named `prefix/<relative>`,
// with their mtimes (tree_entries plus the non-empty directories).
Result<std::vector<TarEntry>> tree_with_dirs(const std::filesystem::path& root, const std::string& prefix);

// Writes `entries` (in order) to `file` as a zstd tar with kept mtimes:
// complete or not at all (a temporary file renamed over it).
Result<void> write_tree_archive(const std::filesystem::path& file, const std::vector<TarEntry>& entries,
                                const Compression& c);

// The first member's data, which must be named `name` (a manifest read
// before anything is extracted); at most `max_bytes`.
Result<std::string> read_first_member(const std::filesystem::path& file, const std::string& name,
                                      std::size_t max_bytes);

// Extracts the whole archive into `dest`, which must not exist yet: `dest`
// appears complete, or not at all. Symlinks keep their targets, absolute
// ones too (LinkTargets::any); no member is written through one.
Result<void> extract_tree_archive(const std::filesystem::path& file, const std::filesystem::path& dest);

}  // namespace sf::archive
