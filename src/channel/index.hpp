#pragma once
// A local conda channel: <channel>/<subdir>/{*.conda,*.tar.bz2,repodata.json}.
// Indexing writes repodata.json for every subdir (always noarch/ too), under
// an exclusive lock on <channel>/.index.lock, atomically (temp + rename).
// It is incremental: <subdir>/.cache/index-cache.json remembers each file's
// size, mtime, digests and record, so unchanged files are not re-read. Each
// subdir it indexes loses the temp files killed writers left there.
// Beside repodata.json it writes repodata.json.zst and CEP-16 shards
// (shards.hpp), a shard only when its name's records changed.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace sf::channel {

struct IndexStats {
    int subdirs = 0;   // repodata.json files written
    int packages = 0;  // records in them
    int hashed = 0;    // package files read and hashed this run
    int cached = 0;    // package files taken from the cache
    int shards_written = 0, shards_reused = 0, shards_removed = 0;  // CEP-16 shard files
    std::vector<std::string> warnings;  // skipped files, with the reason
};

// Indexes every subdir of `channel` that holds packages or is a known
// platform name, plus noarch/.
Result<IndexStats> index_channel(const std::filesystem::path& channel);

// Indexes one subdir (and makes sure noarch/repodata.json exists).
Result<IndexStats> index_subdir(const std::filesystem::path& channel, const std::string& subdir);

// Copies `pkg` into <channel>/<its subdir>/ (temp + rename) and re-indexes
// that subdir, all under the channel lock. Returns the path in the channel.
Result<std::filesystem::path> add_package(const std::filesystem::path& channel, const std::filesystem::path& pkg);

// The repodata record of one package file: its info/index.json plus md5,
// sha256 and size. Checks the file name matches name-version-build.
Result<nlohmann::json> package_record(const std::filesystem::path& pkg);

}  // namespace sf::channel

namespace sf::channel {

// What to do with a file of the same name already in the channel whose bytes differ.
enum class Existing { refuse, replace };

struct Added {
    std::filesystem::path path;  // in the channel
    enum class How { added, unchanged, replaced } how = How::added;
};

// Copies each package into <channel>/<its subdir>/ and indexes the subdirs
// touched, all under the channel lock. Every file is checked before any is
// copied: one whose name is taken by other bytes is refused under
// Existing::refuse (the error names it; nothing is written), and one whose
// bytes are already there is left alone.
Result<std::vector<Added>> add_packages(const std::filesystem::path& channel,
                                        const std::vector<std::filesystem::path>& pkgs, Existing existing);

}  // namespace sf::channel
