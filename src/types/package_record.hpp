#pragma once
// One package's metadata as it appears in info/index.json and in repodata
// records, plus the repodata file and info/paths.json. Plain values; JSON in
// and out through nlohmann::json, no I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "types/version.hpp"

namespace sf::types {

struct PackageRecord {
    std::string name;
    Version version;
    std::string build;
    std::int64_t build_number = 0;
    std::vector<std::string> depends;
    std::vector<std::string> constrains;
    std::string subdir;
    std::string noarch;                // "", "generic" or "python"
    std::string arch, platform;        // e.g. x86_64, linux (absent for noarch)
    std::string md5, sha256;           // of the package file (repodata only)
    std::optional<std::uint64_t> size; // of the package file (repodata only)
    std::optional<std::int64_t> timestamp;  // ms since the epoch
    std::string license, license_family;
    std::vector<std::string> track_features;
    std::string fn;       // file name, e.g. foo-1.0-h0_0.conda
    std::string url;      // where the file came from
    std::string channel;  // the channel it came from

    // Every field as read, including ones not modelled above, so writing a
    // record back (conda-meta) loses nothing.
    nlohmann::json raw = nlohmann::json::object();

    // `what` names the source in errors, e.g. "linux-64/repodata.json: foo-1.0-0.conda".
    // `j` becomes `raw`: pass it moved where it is not needed after.
    static Result<PackageRecord> from_json(nlohmann::json j, std::string_view what);
    nlohmann::json to_json() const;  // raw, with the modelled fields written over it

    std::string dist_name() const;  // name-version-build
};

// repodata.json of one subdir: "packages" (.tar.bz2) and "packages.conda"
// (.conda); each record's fn is set from its key.
// What RepoData::parse does with a record that is not valid: fail the whole
// file, or leave the record out and say why. conda and rattler read records
// lazily, by name, so a bad one matters only to a solve that asks for it.
enum class BadRecord { fail, skip };

struct RepoData {
    std::string subdir;
    // CEP-15: with repodata_version 2, info.base_url says where the packages
    // are (absolute, or relative to repodata.json); "" when not given.
    std::string base_url;
    std::vector<PackageRecord> packages;
    // Under BadRecord::skip: each record left out, with its "name" as written
    // (empty when it has none) and the error naming the file and the record.
    struct Skipped {
        std::string name;
        Error why;
    };
    std::vector<Skipped> skipped;

    static Result<RepoData> parse(std::string_view text, std::string_view source_name,
                                  BadRecord bad = BadRecord::fail);
    // The same from a document already parsed (a shard's msgpack as JSON).
    static Result<RepoData> from_json(nlohmann::json j, std::string_view source_name,
                                      BadRecord bad = BadRecord::fail);
};

// info/paths.json: one record per path, what the packager writes and the
// installer reads.
enum class PathType { hardlink, softlink, directory };
enum class FileMode { text, binary };

struct PathEntry {
    std::string path;  // "_path", relative to the prefix
    PathType type = PathType::hardlink;
    std::string sha256;                 // empty for directories
    std::optional<std::uint64_t> size;  // absent: written as null
    std::string prefix_placeholder;     // empty: none
    FileMode file_mode = FileMode::text;
    bool no_link = false;
};

struct PathsJson {
    int paths_version = 1;
    std::vector<PathEntry> paths;

    static Result<PathsJson> parse(std::string_view text, std::string_view source_name);
    nlohmann::json to_json() const;
};

std::string_view to_string(PathType t);
std::string_view to_string(FileMode m);

}  // namespace sf::types
