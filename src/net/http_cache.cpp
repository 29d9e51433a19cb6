#include "net/http_cache.hpp"

#include <chrono>
#include <optional>

#include <nlohmann/json.hpp>

#include "net/http.hpp"
#include "net/url.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

namespace sf::net {
namespace {

using json = nlohmann::json;
namespace stdfs = std::filesystem;

constexpr const char* kBody = ".body";  // the body as sent

struct Info {
    std::string etag, last_modified, cache_control;
    std::int64_t fetched_at = 0;
    std::string sha256;  // the body's, checked
};

std::int64_t now_s() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// An entry read back: what revalidates it, the size of the body as stored
// (as sent: a .zst stays compressed, so a cold fetch writes and hashes the
// small form), and the body decoded.
struct Entry {
    Info info;
    std::uint64_t stored_size = 0;
    std::string body;
};

// The entry, if it is whole: its stored body's sha256 and size are
// info.json's, and it decodes.
std::optional<Entry> read_entry(const fs::Dir& dir, const std::string& key, const Decode& decode,
                                std::uint64_t max_bytes) {
    auto info_text = dir.read(key + ".info.json", 1 << 20);
    if (!info_text) return std::nullopt;
    json j = json::parse(*info_text, nullptr, false);
    if (!j.is_object()) return std::nullopt;
    auto str = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : ""; };
    if (!j.contains("size") || !j["size"].is_number_unsigned()) return std::nullopt;
    auto stored = dir.read(key + kBody, static_cast<std::size_t>(max_bytes));
    if (!stored || stored->size() != j["size"].get<std::uint64_t>() || hash::sha256(*stored) != str("sha256"))
        return std::nullopt;
    Entry e{{str("etag"), str("last_modified"), str("cache_control"), 0, str("sha256")}, stored->size(), {}};
    if (j.contains("fetched_at") && j["fetched_at"].is_number_integer()) e.info.fetched_at = j["fetched_at"].get<std::int64_t>();
    if (!decode) {
        e.body = std::move(*stored);
        return e;
    }
    auto body = decode(*stored);
    if (!body) return std::nullopt;  // damaged past its hash: fetched again
    e.body = std::move(*body);
    return e;
}

// max-age in seconds from Cache-Control; none under no-cache / no-store.
std::optional<std::int64_t> max_age(const std::string& cc) {
    if (cc.find("no-cache") != std::string::npos || cc.find("no-store") != std::string::npos) return std::nullopt;
    auto p = cc.find("max-age=");
    if (p == std::string::npos) return std::nullopt;
    std::int64_t v = 0;
    bool any = false;
    for (std::size_t i = p + 8; i < cc.size() && cc[i] >= '0' && cc[i] <= '9' && v < (std::int64_t{1} << 40); ++i) {
        v = v * 10 + (cc[i] - '0');
        any = true;
    }
    return any ? std::optional<std::int64_t>(v) : std::nullopt;
}

Result<void> write_info(const fs::Dir& dir, const std::string& key, const std::string& url, const Response& r,
                        const std::string& sha256, std::size_t size) {
    json info = {{"url", mask(url)},           {"etag", r.etag},           {"last_modified", r.last_modified},
                 {"cache_control", r.cache_control}, {"fetched_at", now_s()}, {"sha256", sha256},
                 {"size", size}};
    return dir.write_atomic(key + ".info.json", info.dump(2) + "\n");
}

Result<void> write_entry(const fs::Dir& dir, const std::string& key, const std::string& url, const Response& r,
                         const std::string& body) {
    // Body first: a kill between the two leaves a body its old info does not
    // match, which the next run fetches again.
    if (auto ok = dir.write_atomic(key + kBody, body); !ok) return ok;
    return write_info(dir, key, url, r, hash::sha256(body), body.size());
}

}  // namespace

std::string cache_key(const std::string& url) { return hash::sha256(url).substr(0, 32); }

// Only whether one was written: reading it checks the body.
bool has_entry(const stdfs::path& cache_dir, const std::string& url) {
    auto dir = fs::Dir::open(cache_dir);
    if (!dir) return false;
    auto info_text = dir->read(cache_key(url) + ".info.json", 1 << 20);
    if (!info_text) return false;
    json j = json::parse(*info_text, nullptr, false);
    return j.is_object() && j.contains("size") && j.contains("sha256");
}

std::optional<std::string> cached_only(const stdfs::path& cache_dir, const std::string& url, const Decode& decode,
                                       std::uint64_t max_bytes) {
    auto dir = fs::Dir::open(cache_dir);
    if (!dir) return std::nullopt;
    const std::string key = cache_key(url);
    fs::FileLock lock(cache_dir / (key + ".lock"));
    auto entry = read_entry(*dir, key, decode, max_bytes);
    if (!entry) return std::nullopt;
    return std::move(entry->body);
}

Result<CachedBody> cached_get(const stdfs::path& cache_dir, const std::string& url, const Decode& decode,
                              std::uint64_t max_bytes, Absent absent) {
    auto dir = fs::Dir::open(cache_dir, fs::Create::yes);
    if (!dir) return Unexpected<Error>{dir.error()};
    const std::string key = cache_key(url);
    fs::FileLock lock(cache_dir / (key + ".lock"));
    auto entry = read_entry(*dir, key, decode, max_bytes);
    Request req{url, {}, max_bytes};
    if (entry) {
        const Info& info = entry->info;
        if (auto age = max_age(info.cache_control); age && now_s() - info.fetched_at < *age)
            return CachedBody{Fetched::fresh, std::move(entry->body)};
        if (!info.etag.empty()) req.headers.emplace_back("If-None-Match", info.etag);
        if (!info.last_modified.empty()) req.headers.emplace_back("If-Modified-Since", info.last_modified);
    }
    auto resp = get(req);
    if (!resp) return Unexpected<Error>{resp.error()};
    if (resp->status == 304 && entry) {
        // Refreshes fetched_at (and any new validators); the body is kept as is.
        Response keep = *resp;
        if (keep.etag.empty()) keep.etag = entry->info.etag;
        if (keep.last_modified.empty()) keep.last_modified = entry->info.last_modified;
        // The body was just checked against the old info: only the info is new.
        if (auto ok = write_info(*dir, key, url, keep, entry->info.sha256, entry->stored_size); !ok)
            return Unexpected<Error>{ok.error()};
        return CachedBody{Fetched::revalidated, std::move(entry->body)};
    }
    const bool denied = resp->status == 401 || resp->status == 403;
    if (resp->status == 404 || resp->status == 410 || (denied && absent == Absent::or_denied))
        return CachedBody{Fetched::missing, {}};
    if (resp->status != 200) return fail(SourceLoc{mask(url)}, status_text(resp->status));
    // Decoded before anything is kept: a body that does not decode is not cached.
    auto body = decode ? decode(resp->body) : Result<std::string>(std::string());
    if (!body) return Unexpected<Error>{body.error()};
    if (auto ok = write_entry(*dir, key, url, *resp, resp->body); !ok) return Unexpected<Error>{ok.error()};
    return CachedBody{Fetched::downloaded, decode ? std::move(*body) : std::move(resp->body)};
}

}  // namespace sf::net
