#pragma once
// Channels as conda names them, resolved to a URL: `https://host/ch` and
// `http://...` as given (credentials and `/t/<token>/` kept for the
// transfer, masked wherever shown), `file:///dir` and a path (`/dir`,
// `./dir`, or a name that is an existing directory) as a local directory,
// and any other name as `<channel_alias>/<name>` (`conda-forge` ->
// https://conda.anaconda.org/conda-forge), or `<url>/<name>` where
// custom_channels maps the name (or its first segments) to a URL. The alias
// and custom_channels come from env::config() (condarc.hpp: .condarc and
// $CONDA_CHANNEL_ALIAS), else conda's default alias.
//
// A remote subdir's repodata comes through net's HTTP cache under
// <pkgs_dir>/cache/: the CEP-16 shard index (repodata_shards.msgpack.zst;
// the shards themselves: channel_shards.hpp) first, then
// repodata.json.zst, then repodata.json. Which of them a subdir serves is
// remembered in <cache>/<key>.forms.json, so a later run asks only for the
// one that exists (for 14 days, as rattler does).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::env {

namespace stdfs = std::filesystem;

// offline: only what the caches hold (`install --offline`); nothing is asked.
enum class Network { online, offline };

inline constexpr const char* kDefaultChannelAlias = "https://conda.anaconda.org";

struct ChannelRef {
    std::string url;      // with its credentials; no trailing '/'
    std::string display;  // url masked (net::mask): for messages, records and --json
    stdfs::path local;    // the directory of a local channel; empty for http(s)
    bool is_local() const { return !local.empty(); }
};

// config()'s channel_alias (no trailing '/'), else kDefaultChannelAlias.
std::string channel_alias();

// What `-c given` names. A path that is no directory is an input error; a
// scheme other than http, https and file is refused.
Result<ChannelRef> resolve_channel(const std::string& given);

// -c values as a provider takes them: local directories (absolute) and the
// rest (URLs, names) as given, each resolved now so that a bad one is one
// input error. Local ones keep their order, as remote ones do; local ones
// come first in priority.
struct ChannelSplit {
    std::vector<stdfs::path> local;
    std::vector<std::string> remote;
};
Result<ChannelSplit> split_channels(const std::vector<std::string>& given);

// The text of <channel>/<subdir>/repodata.json of a remote channel, fetched
// or revalidated through <cache_dir>; nullopt when the server has neither
// repodata.json.zst nor repodata.json there (404), or, offline, when the
// cache has neither.
Result<std::optional<std::string>> remote_repodata(const ChannelRef& ch, const std::string& subdir,
                                                   const stdfs::path& cache_dir, Network net = Network::online);

inline constexpr const char* kShardIndex = "repodata_shards.msgpack.zst";

// The decompressed (msgpack) shard index of a remote subdir, through the
// HTTP cache (revalidated as repodata is); nullopt when the server has none
// (404), when a previous run found none, or, offline, when the cache has none.
Result<std::optional<std::string>> remote_shard_index(const ChannelRef& ch, const std::string& subdir,
                                                      const stdfs::path& cache_dir, Network net = Network::online);

// A zstd frame, decompressed streaming (the content size is optional in a
// frame) and refused past `max_bytes`; errors name `where`.
Result<std::string> decompress_zstd(const std::string& in, const std::string& where, std::uint64_t max_bytes);

}  // namespace sf::env
