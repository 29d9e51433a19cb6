#pragma once
// Reading conda packages: .conda (a STORED zip holding metadata.json,
// info-<stem>.tar.zst and pkg-<stem>.tar.zst) and .tar.bz2. Everything is
// streamed through libarchive; a .conda's inner tarballs are read straight out
// of the zip without temporary files.
//
// extract_package() is the safe way to unpack: member names must be relative
// with no "..", symlink targets must stay inside the destination, and nothing
// is written through a symlink. It extracts into a temporary sibling directory
// and renames it into place, so a failure (unsafe member, truncated archive,
// corrupt zstd frame) leaves nothing behind.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <string_view>
#include <vector>

#include <ctime>
#include <optional>

#include "core/error.hpp"
#include "types/package_record.hpp"

namespace sf::archive {

namespace stdfs = std::filesystem;

enum class PackageFormat { conda, tar_bz2 };

// By file name: ".conda" or ".tar.bz2"; anything else is an error.
Result<PackageFormat> package_format(const stdfs::path& file);
// "foo-1.0-h0_0" for foo-1.0-h0_0.conda / .tar.bz2.
std::string package_stem(const stdfs::path& file);

enum class EntryType { file, symlink, directory, hardlink };

struct Entry {
    std::string path;         // as stored (normalized: no leading "./")
    EntryType type = EntryType::file;
    std::string link_target;  // symlink target, or the hardlink's source member
    std::uint64_t size = 0;
    unsigned mode = 0644;     // permission bits
    // The stored mtime, which extraction gives the file (as tar does): a
    // restored build tree is then as up to date for ninja as it was.
    std::optional<struct ::timespec> mtime;
};

// Which part of a package to read.
enum class Part { info, payload, all };

// Every member of the package (both inner tarballs for .conda), in archive order.
Result<std::vector<Entry>> list_package(const stdfs::path& pkg, Part part = Part::all);

// The bytes of one member, e.g. "info/index.json". Error if absent.
Result<std::string> read_package_member(const stdfs::path& pkg, std::string_view member);

// info/index.json and info/paths.json (absent in very old packages).
struct PackageMetadata {
    types::PackageRecord index;
    std::optional<types::PathsJson> paths;
};
Result<PackageMetadata> read_package_metadata(const stdfs::path& pkg);

// Extracts the whole package into `dest`, which must not exist yet. Atomic:
// on success `dest` appears complete, on failure it does not appear at all.
// Refused: unsafe names (see safe_member_path), symlinks leading outside,
// device files and fifos, a name that appears twice, more than kMaxMembers
// members, or members adding up to more than extraction_limit() bytes (a
// decompression bomb is refused before anything is written).
Result<void> extract_package(const stdfs::path& pkg, const stdfs::path& dest);

inline constexpr std::uint64_t kMaxExpansionRatio = 100;
inline constexpr std::size_t kMaxMembers = 1'000'000;
// What a member costs against extraction_limit() beyond its size: a block.
inline constexpr std::uint64_t kMemberCost = 4096;
// At most 100 times the archive's size, and never less than 256 MiB.
std::uint64_t extraction_limit(std::uint64_t archive_size);

// The member-name rule used by extract_package(): relative, no "..", no
// empty name. Returns the normalized path or an error message.
Result<std::string> safe_member_path(std::string_view name);
// Creates the parent directories of member `rel` (a safe_member_path())
// under `root`, refusing to pass through anything that is not a real
// directory (e.g. a symlink the archive created earlier). `known` (optional)
// holds the directories below `root` already checked or made, and gains the
// new ones; returns how many directories it made.
Result<std::size_t> make_member_parents(const stdfs::path& root, const std::string& rel,
                                        std::unordered_set<std::string>* known = nullptr);
// Does symlink `link_path` (relative, inside the root) with `target` stay inside the root?
bool symlink_stays_inside(std::string_view link_path, std::string_view target);

}  // namespace sf::archive
