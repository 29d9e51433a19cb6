#include "env/channel.hpp"

#include <zstd.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include <nlohmann/json.hpp>

#include "env/condarc.hpp"
#include "net/http_cache.hpp"
#include "net/url.hpp"
#include "util/dir_handle.hpp"
#include "util/strings.hpp"

namespace sf::env {
namespace {

// What one repodata file may be, sent or decoded: conda-forge's linux-64
// repodata.json was 243 MB in 2024.
constexpr std::uint64_t kMaxRepodata = std::uint64_t{2} << 30;

std::string trim_slashes(std::string s) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

// Which forms a remote subdir serves, as a previous run found them:
// <cache_dir>/<key of the subdir URL>.forms.json, {"shards": bool, "zst":
// bool, "checked_at": seconds}. A form found missing is not asked for again
// for 14 days, as rattler remembers has_zst and has_shards.
constexpr std::int64_t kFormsTtl = 14 * 24 * 3600;

struct Forms {
    std::optional<bool> shards, zst;
};

std::int64_t now_s() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Forms read_forms(const stdfs::path& cache_dir, const std::string& base) {
    Forms f;
    auto dir = fs::Dir::open(cache_dir);
    if (!dir) return f;
    auto text = dir->read(net::cache_key(base) + ".forms.json", 4096);
    if (!text) return f;
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object() || !j.contains("checked_at") || !j["checked_at"].is_number_integer()) return f;
    if (now_s() - j["checked_at"].get<std::int64_t>() > kFormsTtl) return f;
    if (j.contains("shards") && j["shards"].is_boolean()) f.shards = j["shards"].get<bool>();
    if (j.contains("zst") && j["zst"].is_boolean()) f.zst = j["zst"].get<bool>();
    return f;
}

void write_forms(const stdfs::path& cache_dir, const std::string& base, const Forms& f) {
    auto dir = fs::Dir::open(cache_dir, fs::Create::yes);
    if (!dir) return;  // only a later probe lost
    nlohmann::json j = {{"url", net::mask(base)}, {"checked_at", now_s()}};
    if (f.shards) j["shards"] = *f.shards;
    if (f.zst) j["zst"] = *f.zst;
    (void)dir->write_atomic(net::cache_key(base) + ".forms.json", j.dump() + "\n");
}

}  // namespace

Result<std::string> decompress_zstd(const std::string& in, const std::string& where, std::uint64_t max_bytes) {
    // One decoder and buffer per thread: a solve reads hundreds of shards.
    thread_local std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    thread_local std::string buf(ZSTD_DStreamOutSize(), '\0');
    if (!ctx) return fail_runtime({}, "cannot allocate a zstd decoder");
    ZSTD_DCtx_reset(ctx.get(), ZSTD_reset_session_only);
    std::string out;
    // The frame's size when it says one (a hint: the stream still decides).
    if (auto n = ZSTD_getFrameContentSize(in.data(), in.size());
        n != ZSTD_CONTENTSIZE_UNKNOWN && n != ZSTD_CONTENTSIZE_ERROR && n <= max_bytes)
        out.reserve(static_cast<std::size_t>(n));
    ZSTD_inBuffer ib{in.data(), in.size(), 0};
    std::size_t last = 1;
    while (ib.pos < ib.size) {
        ZSTD_outBuffer ob{buf.data(), buf.size(), 0};
        last = ZSTD_decompressStream(ctx.get(), &ob, &ib);
        if (ZSTD_isError(last)) return fail(SourceLoc{where}, std::string("not a valid zstd file: ") + ZSTD_getErrorName(last));
        out.append(buf.data(), ob.pos);
        if (out.size() > max_bytes)
            return fail(SourceLoc{where}, "decompresses to more than " + std::to_string(max_bytes) + " bytes");
    }
    if (last != 0) return fail(SourceLoc{where}, "the zstd file is truncated");
    return out;
}

std::string channel_alias() {
    const std::string& a = config().channel_alias.value;
    return trim_slashes(a.empty() ? kDefaultChannelAlias : a);
}

namespace {

// conda's custom_channels: a name whose leading segments are a key is
// served from that key's URL (`key: https://host` -> https://host/<name>).
std::optional<std::string> custom_channel(const std::string& name) {
    const auto& custom = config().custom_channels;
    std::string best;
    for (const auto& [key, url] : custom)
        if ((name == key || str::starts_with(name, key + "/")) && key.size() > best.size() && !url.value.empty()) best = key;
    if (best.empty()) return std::nullopt;
    return trim_slashes(custom.at(best).value) + "/" + name;
}

}  // namespace

Result<ChannelRef> resolve_channel(const std::string& given) {
    ChannelRef ch;
    std::error_code ec;
    std::string scheme = net::scheme_of(given);
    auto local = [&](const stdfs::path& dir) -> Result<ChannelRef> {
        stdfs::path abs = stdfs::absolute(dir, ec).lexically_normal();
        if (!stdfs::is_directory(abs, ec))
            return fail("channel " + given + ": no such directory");
        std::string s = trim_slashes(abs.string());
        ch.local = s;
        ch.url = "file://" + s;
        ch.display = given;  // as before: messages name the channel as the user wrote it
        return ch;
    };
    if (scheme == "file") return local(given.substr(7));
    if (scheme == "http" || scheme == "https") {
        ch.url = trim_slashes(given);
        ch.display = net::mask(ch.url);
        return ch;
    }
    if (!scheme.empty())
        return fail(SourceLoc{net::mask(given)}, "unsupported channel URL scheme '" + scheme + "'",
                    "use https://, http://, file:// or a local directory");
    if (given.empty()) return fail("an empty channel name", "give a channel name, a URL or a directory");
    if (given[0] == '/' || given[0] == '.' || given[0] == '~' || stdfs::is_directory(given, ec)) return local(given);
    const std::string name = trim_slashes(given);
    ch.url = custom_channel(name).value_or(channel_alias() + "/" + name);
    ch.display = net::mask(ch.url);
    return ch;
}

Result<ChannelSplit> split_channels(const std::vector<std::string>& given) {
    ChannelSplit out;
    for (const auto& g : given) {
        auto ch = resolve_channel(g);
        if (!ch) return Unexpected<Error>{ch.error()};
        if (ch->is_local()) out.local.push_back(ch->local);
        else out.remote.push_back(g);
    }
    return out;
}

namespace {

// Repodata and shard indexes are served as .zst: decoded on every read, named as `where` in errors.
net::Decode zstd_decode(std::string where) {
    return [where = std::move(where)](const std::string& b) { return decompress_zstd(b, where, kMaxRepodata); };
}

}  // namespace

Result<std::optional<std::string>> remote_repodata(const ChannelRef& ch, const std::string& subdir,
                                                   const stdfs::path& cache_dir, Network network) {
    const std::string base = ch.url + "/" + subdir + "/";
    std::string names[2] = {"repodata.json.zst", "repodata.json"};
    // Remember which one exists: the one with a cache entry goes first, and
    // a .zst found missing is not asked for again (Forms).
    const Forms before = read_forms(cache_dir, base);
    Forms forms = before;
    if (!net::has_entry(cache_dir, base + names[0]) && net::has_entry(cache_dir, base + names[1]))
        std::swap(names[0], names[1]);
    for (const auto& name : names) {
        const bool zst = str::ends_with(name, ".zst");
        if (zst && forms.zst == false && network == Network::online) continue;
        const std::string where = net::mask(base + name);
        const net::Decode decode = zst ? zstd_decode(where) : net::Decode();
        if (network == Network::offline) {
            auto got = net::cached_only(cache_dir, base + name, decode, kMaxRepodata);
            if (got) return std::optional<std::string>(std::move(*got));
            continue;
        }
        auto got = net::cached_get(cache_dir, base + name, decode, kMaxRepodata,
                                   zst ? net::Absent::or_denied : net::Absent::not_found);
        if (!got) return Unexpected<Error>{got.error()};
        if (zst) forms.zst = got->how != net::Fetched::missing;
        if (got->how == net::Fetched::missing) continue;
        // Remembered once the subdir is read (a failed read leaves nothing
        // in the cache); only called when the subdir has no shard index.
        forms.shards = false;
        if (forms.shards != before.shards || forms.zst != before.zst) write_forms(cache_dir, base, forms);
        return std::optional<std::string>(std::move(got->body));
    }
    return std::optional<std::string>();
}

Result<std::optional<std::string>> remote_shard_index(const ChannelRef& ch, const std::string& subdir,
                                                      const stdfs::path& cache_dir, Network network) {
    const std::string base = ch.url + "/" + subdir + "/";
    const std::string url = base + kShardIndex;
    const std::string where = net::mask(url);
    const net::Decode decode = zstd_decode(where);
    if (network == Network::offline) return net::cached_only(cache_dir, url, decode, kMaxRepodata);
    Forms forms = read_forms(cache_dir, base);
    if (forms.shards == false && !net::has_entry(cache_dir, url)) return std::optional<std::string>();
    auto got = net::cached_get(cache_dir, url, decode, kMaxRepodata, net::Absent::or_denied);
    if (!got) return Unexpected<Error>{got.error()};
    if (got->how == net::Fetched::missing) return std::optional<std::string>();  // remote_repodata remembers it
    if (forms.shards != true) write_forms(cache_dir, base, Forms{true, forms.zst});
    return std::optional<std::string>(std::move(got->body));
}

}  // namespace sf::env
