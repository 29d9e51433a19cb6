#pragma once
// The fast forms of one subdir's repodata, written beside repodata.json:
// repodata.json.zst, and CEP-16 sharded repodata (repodata_shards.msgpack.zst,
// a zstd msgpack map {"version": 1, "info": {base_url, shards_base_url,
// subdir}, "shards": {name: sha256 bytes}}, and shards/<hex sha256 of the
// compressed shard>.msgpack.zst, each {"packages", "packages.conda",
// "removed"} with md5/sha256 as bytes). Same records, same bytes: map keys
// sorted, fixed zstd levels, no timestamps.
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace sf::fs {
class Dir;  // util/dir_handle.hpp: util is a private link of this stage
}

namespace sf::channel {

struct ShardStats {
    int written = 0;  // shard files compressed and written this run
    int reused = 0;   // shard files kept: same records as the last run
    int removed = 0;  // shard files no name refers to any more
};

// Writes the shards (each only when its records changed since the last run,
// remembered in `cache_dir`/shards-cache.json and checked against the file),
// then the shard index, then repodata.json.zst (from `repodata_text`, the
// exact bytes of repodata.json). Returns the shard hashes the new index
// names. The caller holds the channel lock, writes repodata.json after this,
// then calls remove_stale_shards() with them.
Result<std::set<std::string>> write_fast_repodata(const fs::Dir& sub, const fs::Dir& cache_dir,
                                                  const nlohmann::json& repodata, const std::string& repodata_text,
                                                  ShardStats& stats);

// repodata.json's text as repodata.json.zst holds it (the level index uses).
Result<std::string> compress_repodata(const std::string& repodata_text, const std::string& where);

// Removes shards/<sha256>.msgpack.zst files not in `live` (only names of
// that form). Call once the new index is in place.
void remove_stale_shards(const fs::Dir& sub, const std::set<std::string>& live, ShardStats& stats);

// Whether a record's md5 and sha256 are lowercase hex of their length, as a
// shard stores them as bytes. A record failing this is skipped by the index.
bool digests_are_hex(const nlohmann::json& record);

}  // namespace sf::channel
