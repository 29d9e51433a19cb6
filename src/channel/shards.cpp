#include "channel/shards.hpp"

#include <zstd.h>

#include <filesystem>
#include <map>

#include <msgpack/pack.hpp>

#include "types/json_fields.hpp"
#include "util/dir_handle.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::channel {

namespace stdfs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kShardCacheVersion = 1;
// Shards and the index are small and written once: the strongest level
// usual for conda artifacts. repodata.json is rewritten on every index and
// may be hundreds of MB, so it gets a level that still runs at ~50 MB/s.
constexpr int kShardLevel = 19;
constexpr int kRepodataLevel = 9;
constexpr std::size_t kMaxShardBytes = std::size_t{64} << 20;  // what clients accept (issue 32)
constexpr const char* kShardSuffix = ".msgpack.zst";

struct Sink {
    std::string out;
    void write(const char* p, std::size_t n) { out.append(p, n); }
};
using Packer = msgpack::packer<Sink>;

void pack_str(Packer& pk, const std::string& s) {
    pk.pack_str(static_cast<std::uint32_t>(s.size()));
    pk.pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
}

bool is_hex(const std::string& s, std::size_t len) {
    if (s.size() != len) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

std::string unhex(const std::string& s) {
    auto nib = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    std::string out(s.size() / 2, '\0');
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>(nib(s[2 * i]) << 4 | nib(s[2 * i + 1]));
    return out;
}

// JSON as msgpack: objects as maps in nlohmann's (sorted) key order, integers
// in their smallest encoding, as Python's msgpack writes them.
void pack_json(Packer& pk, const json& j) {
    switch (j.type()) {
    case json::value_t::null: pk.pack_nil(); break;
    case json::value_t::boolean: j.get<bool>() ? pk.pack_true() : pk.pack_false(); break;
    case json::value_t::number_unsigned: pk.pack_uint64(j.get<std::uint64_t>()); break;
    case json::value_t::number_integer: pk.pack_int64(j.get<std::int64_t>()); break;
    case json::value_t::number_float: pk.pack_double(j.get<double>()); break;
    case json::value_t::string: pack_str(pk, j.get_ref<const std::string&>()); break;
    case json::value_t::array:
        pk.pack_array(static_cast<std::uint32_t>(j.size()));
        for (const auto& v : j) pack_json(pk, v);
        break;
    case json::value_t::object:
        pk.pack_map(static_cast<std::uint32_t>(j.size()));
        for (const auto& [k, v] : j.items()) {
            pack_str(pk, k);
            pack_json(pk, v);
        }
        break;
    default: pk.pack_nil(); break;  // binary and discarded: never in parsed repodata
    }
}

// A record: as JSON, but md5 and sha256 as bytes (CEP-16).
void pack_record(Packer& pk, const json& rec) {
    pk.pack_map(static_cast<std::uint32_t>(rec.size()));
    for (const auto& [k, v] : rec.items()) {
        pack_str(pk, k);
        if ((k == "md5" || k == "sha256") && v.is_string()) {
            const std::string raw = unhex(v.get<std::string>());
            pk.pack_bin(static_cast<std::uint32_t>(raw.size()));
            pk.pack_bin_body(raw.data(), static_cast<std::uint32_t>(raw.size()));
        } else {
            pack_json(pk, v);
        }
    }
}

void pack_records(Packer& pk, const std::map<std::string, const json*>& recs) {
    pk.pack_map(static_cast<std::uint32_t>(recs.size()));
    for (const auto& [fn, rec] : recs) {
        pack_str(pk, fn);
        pack_record(pk, *rec);
    }
}

// One package name's records, by file name.
struct NameRecords {
    std::map<std::string, const json*> tar_bz2, conda;
};

std::string shard_msgpack(const NameRecords& r) {
    Sink s;
    Packer pk(s);
    pk.pack_map(3);  // keys in byte order, as everywhere
    pack_str(pk, "packages");
    pack_records(pk, r.tar_bz2);
    pack_str(pk, "packages.conda");
    pack_records(pk, r.conda);
    pack_str(pk, "removed");
    pk.pack_array(0);
    return std::move(s.out);
}

std::string index_msgpack(const std::string& subdir, const std::map<std::string, std::string>& shards) {
    Sink s;
    Packer pk(s);
    pk.pack_map(3);
    pack_str(pk, "info");
    pk.pack_map(3);
    // An empty base_url: packages beside the index (conda reads "" as unset;
    // rattler resolves it against the subdir URL).
    pack_str(pk, "base_url");
    pack_str(pk, "");
    pack_str(pk, "shards_base_url");
    pack_str(pk, "./shards/");
    pack_str(pk, "subdir");
    pack_str(pk, subdir);
    pack_str(pk, "shards");
    pk.pack_map(static_cast<std::uint32_t>(shards.size()));
    for (const auto& [name, hash] : shards) {
        pack_str(pk, name);
        const std::string raw = unhex(hash);
        pk.pack_bin(static_cast<std::uint32_t>(raw.size()));
        pk.pack_bin_body(raw.data(), static_cast<std::uint32_t>(raw.size()));
    }
    pack_str(pk, "version");
    pk.pack_uint64(1);
    return std::move(s.out);
}

Result<std::string> zstd_compress(const std::string& in, int level, const std::string& where) {
    std::string out(ZSTD_compressBound(in.size()), '\0');
    const std::size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level);
    if (ZSTD_isError(n)) return fail_runtime(SourceLoc{where}, std::string("zstd failed: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

// Whether `file` (a shard we wrote) decompresses to exactly `expect`.
bool decompresses_to(const std::string& file, const std::string& expect) {
    const unsigned long long size = ZSTD_getFrameContentSize(file.data(), file.size());
    if (size != expect.size()) return false;
    std::string out(expect.size(), '\0');
    const std::size_t n = ZSTD_decompress(out.data(), out.size(), file.data(), file.size());
    return !ZSTD_isError(n) && n == expect.size() && out == expect;
}

std::map<std::string, std::string> load_shard_cache(const fs::Dir& cache_dir) {
    std::map<std::string, std::string> out;
    auto text = cache_dir.read("shards-cache.json");
    if (!text || types::json_too_deep(*text)) return out;
    try {
        json j = json::parse(*text);
        if (j.value("version", 0) != kShardCacheVersion || !j.contains("shards") || !j["shards"].is_object()) return out;
        for (const auto& [name, hash] : j["shards"].items())
            if (hash.is_string() && is_hex(hash.get<std::string>(), 64)) out[name] = hash.get<std::string>();
    } catch (const std::exception&) {
        // A damaged cache only costs a recompression.
    }
    return out;
}

// The shard file of `name`: the one the cache names when it still holds
// exactly these records (checked against its bytes and its hash, since the
// cache and the file both live in the channel), else a new one.
Result<std::string> place_shard(const fs::Dir& shards_dir, const std::string& name, const std::string& packed,
                                const std::map<std::string, std::string>& cache, ShardStats& stats) {
    if (auto c = cache.find(name); c != cache.end()) {
        auto file = shards_dir.read(c->second + kShardSuffix, kMaxShardBytes);
        if (file && hash::sha256(*file) == c->second && decompresses_to(*file, packed)) {
            ++stats.reused;
            return c->second;
        }
    }
    auto z = zstd_compress(packed, kShardLevel, (shards_dir.path() / name).string());
    if (!z) return unexpected(z.error());
    const std::string h = hash::sha256(*z);
    if (auto r = shards_dir.write_atomic(h + kShardSuffix, *z); !r) return unexpected(r.error());
    ++stats.written;
    return h;
}

}  // namespace

Result<std::string> compress_repodata(const std::string& repodata_text, const std::string& where) {
    return zstd_compress(repodata_text, kRepodataLevel, where);
}

bool digests_are_hex(const json& record) {
    auto ok = [&](const char* key, std::size_t len) {
        auto it = record.find(key);
        return it == record.end() || (it->is_string() && is_hex(it->get<std::string>(), len));
    };
    return ok("md5", 32) && ok("sha256", 64);
}

Result<std::set<std::string>> write_fast_repodata(const fs::Dir& sub, const fs::Dir& cache_dir, const json& repodata,
                                                  const std::string& repodata_text, ShardStats& stats) {
    auto shards_dir = sub.sub("shards", fs::Create::yes);
    if (!shards_dir) return unexpected(shards_dir.error());
    shards_dir->sweep_stale_temps();
    std::map<std::string, NameRecords> by_name;
    for (const char* key : {"packages", "packages.conda"}) {
        for (const auto& [fn, rec] : repodata.at(key).items()) {
            auto& n = by_name[rec.at("name").get<std::string>()];
            (std::string(key) == "packages" ? n.tar_bz2 : n.conda)[fn] = &rec;
        }
    }
    const auto cache = load_shard_cache(cache_dir);
    std::map<std::string, std::string> shards;  // name -> hex sha256
    std::set<std::string> live;
    for (const auto& [name, recs] : by_name) {
        auto h = place_shard(*shards_dir, name, shard_msgpack(recs), cache, stats);
        if (!h) return unexpected(h.error());
        shards[name] = *h;
        live.insert(*h);
    }
    const std::string subdir = repodata.at("info").at("subdir").get<std::string>();
    // Shards first, then the index naming them, so a reader never meets an
    // index whose shards are not there yet.
    auto index = zstd_compress(index_msgpack(subdir, shards), kShardLevel, (sub.path() / "repodata_shards").string());
    if (!index) return unexpected(index.error());
    if (auto r = sub.write_atomic("repodata_shards.msgpack.zst", *index); !r) return unexpected(r.error());
    auto rz = zstd_compress(repodata_text, kRepodataLevel, (sub.path() / "repodata.json.zst").string());
    if (!rz) return unexpected(rz.error());
    if (auto r = sub.write_atomic("repodata.json.zst", *rz); !r) return unexpected(r.error());
    json cache_doc = {{"version", kShardCacheVersion}, {"shards", shards}};
    if (auto r = cache_dir.write_atomic("shards-cache.json", cache_doc.dump(1)); !r) return unexpected(r.error());
    return live;
}

void remove_stale_shards(const fs::Dir& sub, const std::set<std::string>& live, ShardStats& stats) {
    auto shards_dir = sub.sub("shards");
    if (!shards_dir) return;
    std::error_code ec;
    std::vector<std::string> stale;
    for (stdfs::directory_iterator it(shards_dir->path(), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (!str::ends_with(n, kShardSuffix)) continue;
        const std::string h = n.substr(0, n.size() - std::string(kShardSuffix).size());
        if (is_hex(h, 64) && !live.count(h)) stale.push_back(n);
    }
    for (const auto& n : stale)
        if (shards_dir->remove(n)) ++stats.removed;
}

}  // namespace sf::channel
