#pragma once
// A GET through an on-disk HTTP cache, as a conda client keeps repodata:
// <cache_dir>/<key>.body holds the body as sent (a .zst stays compressed:
// a cold fetch writes and hashes 50 MB, not 280) and <key>.info.json what
// revalidates it (ETag, Last-Modified, Cache-Control, when it was fetched)
// plus the stored body's sha256 and size. Each read decodes it again. <key> is a hash of the URL, so no secret
// in the URL reaches a file name; info.json names the URL masked.
//
// An entry still fresh by its max-age is used without asking. Otherwise it
// is revalidated with If-None-Match / If-Modified-Since, and a 304 reuses
// it. An entry whose body does not match its info (torn by a kill, edited)
// is fetched again unconditionally. Both files are written atomically, body
// first, under one lock per entry (<key>.lock), so concurrent clients never
// read half an entry.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "core/error.hpp"

namespace sf::net {

enum class Fetched { fresh, revalidated, downloaded, missing };

struct CachedBody {
    Fetched how = Fetched::missing;  // missing: a 404 (or 410); nothing cached
    std::string body;
};

// Turns a body as sent into what the caller reads (e.g. zstd-decompressed
// JSON); a downloaded body it refuses is not cached, a cached one it
// refuses is fetched again.
using Decode = std::function<Result<std::string>(const std::string& body)>;

// The cache entry's key for `url`: hex of its sha256, cut to 32 characters.
std::string cache_key(const std::string& url);

// Was an entry for `url` written to `cache_dir`? (Its body is checked when read.)
bool has_entry(const std::filesystem::path& cache_dir, const std::string& url);

// The body of an intact entry for `url`, nothing asked of the server
// (offline); nullopt when there is none.
std::optional<std::string> cached_only(const std::filesystem::path& cache_dir, const std::string& url,
                                       const Decode& decode, std::uint64_t max_bytes);

// What a probe for an optional file counts as absent. `or_denied` adds 401
// and 403: S3 answers 403 for a key it does not have, and a channel that
// needs credentials then fails on repodata.json, the file users know.
enum class Absent { not_found, or_denied };

// Other statuses than 200, 304 and the absent ones are an error naming the
// URL (masked).
Result<CachedBody> cached_get(const std::filesystem::path& cache_dir, const std::string& url, const Decode& decode,
                              std::uint64_t max_bytes, Absent absent = Absent::not_found);

}  // namespace sf::net
