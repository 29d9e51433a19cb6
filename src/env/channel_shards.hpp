#pragma once
// Reading CEP-16 sharded repodata: a subdir's shard index
// (repodata_shards.msgpack.zst: {"version", "info": {base_url,
// shards_base_url, subdir}, "shards": {name: sha256 bytes}}) and the shards
// of the names a solve can reach (shards/<hex sha256>.msgpack.zst, each
// {"packages", "packages.conda", "removed"} with md5/sha256 as bytes).
//
// Shards are fetched for a set of names across all sharded subdirs at once,
// N at a time (net::get_all); the caller widens the set by the names each
// new record depends on or constrains, as rattler's gateway does, until no
// new name turns up. A shard is cached as fetched, under
// <cache_dir>/shards/<hex sha256>.msgpack.zst, and never revalidated: its
// name is its content's hash, checked on every read. A shard whose bytes do
// not hash to its name is an error and is not cached.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "env/channel.hpp"

namespace sf::env {

struct ShardedSubdir {
    ChannelRef channel;
    std::string subdir;
    std::string where;         // the index's URL, masked: for messages
    std::string package_base;  // where the packages are (info.base_url resolved), ending in '/'
    std::string shards_base;   // where the shards are (info.shards_base_url resolved), ending in '/'
    std::map<std::string, std::string> shards;  // package name -> hex sha256 of its shard
    std::set<std::string> fetched;              // names whose shard is read (or that it lacks)
    nlohmann::json packages = nlohmann::json::object(), conda = nlohmann::json::object();
};

// The decompressed shard index of `subdir` of `ch` (fetched from `index_url`).
Result<ShardedSubdir> read_shard_index(const ChannelRef& ch, const std::string& subdir, const std::string& index_url,
                                       const std::string& msgpack);

// Reads the shards of those of `names` each subdir lists and has not read
// yet, from the cache or (online) the servers. Returns the names the new
// records' depends and constrains name (virtual packages left out).
Result<std::set<std::string>> fetch_shards(std::vector<ShardedSubdir>& subs, const std::set<std::string>& names,
                                           const std::filesystem::path& cache_dir, Network network);

// Every name any of `subs` lists (a solve that names none needs them all).
std::set<std::string> all_shard_names(const std::vector<ShardedSubdir>& subs);

// The records read so far as a repodata.json document, for the one repodata
// reader; they are moved out of `sub`.
nlohmann::json as_repodata(ShardedSubdir&& sub);

// Resolves `ref` (absolute, or relative like "./shards/" or "") against the
// URL of the file `of` as a browser does for a path; ends in '/'.
std::string resolve_dir_url(const std::string& of, const std::string& ref);

}  // namespace sf::env
