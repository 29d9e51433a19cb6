#include "env/channel_shards.hpp"

#include <msgpack.hpp>

#include "net/http.hpp"
#include "net/url.hpp"
#include "types/match_spec.hpp"
#include "util/dir_handle.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::env {
namespace {

using json = nlohmann::json;
namespace stdfs = std::filesystem;

// What one shard may be, sent or decoded (issue 32: a shard over 64 MiB is refused).
constexpr std::uint64_t kMaxShard = std::uint64_t{64} << 20;
constexpr int kParallel = 8;  // shards in flight at once, as rattler's default concurrency
constexpr const char* kSuffix = ".msgpack.zst";

std::string to_hex(const char* p, std::size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string out(n * 2, '\0');
    for (std::size_t i = 0; i < n; ++i) {
        auto b = static_cast<unsigned char>(p[i]);
        out[2 * i] = digits[b >> 4];
        out[2 * i + 1] = digits[b & 15];
    }
    return out;
}

// msgpack as JSON: bytes (md5, sha256) as lowercase hex, as repodata.json
// has them. Maps must have string keys; a depth over 64 is refused by the
// unpacker's limit.
json to_json(const msgpack::object& o) {
    switch (o.type) {
    case msgpack::type::NIL: return nullptr;
    case msgpack::type::BOOLEAN: return o.via.boolean;
    case msgpack::type::POSITIVE_INTEGER: return o.via.u64;
    case msgpack::type::NEGATIVE_INTEGER: return o.via.i64;
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64: return o.via.f64;
    case msgpack::type::STR: {
        std::string s(o.via.str.ptr, o.via.str.size);
        if (str::is_valid_utf8(s)) return s;
        // As repodata.json text would carry it: each bad byte U+FFFD.
        return json::parse(json(s).dump(-1, ' ', false, json::error_handler_t::replace));
    }
    case msgpack::type::BIN: return to_hex(o.via.bin.ptr, o.via.bin.size);
    case msgpack::type::ARRAY: {
        json a = json::array();
        for (std::uint32_t i = 0; i < o.via.array.size; ++i) a.push_back(to_json(o.via.array.ptr[i]));
        return a;
    }
    case msgpack::type::MAP: {
        json m = json::object();
        for (std::uint32_t i = 0; i < o.via.map.size; ++i) {
            const auto& kv = o.via.map.ptr[i];
            if (kv.key.type != msgpack::type::STR) throw std::runtime_error("a map key that is not a string");
            m[std::string(kv.key.via.str.ptr, kv.key.via.str.size)] = to_json(kv.val);
        }
        return m;
    }
    default: throw std::runtime_error("an extension type");
    }
}

Unexpected<Error> not_msgpack(const std::string& where, const std::exception& e) {
    return fail(SourceLoc{where}, std::string("not valid msgpack: ") + e.what(),
                "the channel's sharded repodata is damaged; re-run `splitforge index` on the channel");
}

Result<msgpack::object_handle> unpack_object(const std::string& data, const std::string& where) {
    try {
        const msgpack::unpack_limit limit(1u << 24, 1u << 24, kMaxShard, kMaxShard, 0, 64);
        return msgpack::unpack(data.data(), data.size(), nullptr, nullptr, limit);
    } catch (const std::exception& e) {
        return not_msgpack(where, e);
    }
}

Result<json> unpack(const std::string& data, const std::string& where) {
    auto handle = unpack_object(data, where);
    if (!handle) return unexpected(handle.error());
    try {
        return to_json(handle->get());
    } catch (const std::exception& e) {
        return not_msgpack(where, e);
    }
}

std::string_view key_of(const msgpack::object& k) {
    return k.type == msgpack::type::STR ? std::string_view(k.via.str.ptr, k.via.str.size) : std::string_view();
}

// The value of `key` in a msgpack map, or null.
const msgpack::object* member(const msgpack::object& map, std::string_view key) {
    if (map.type != msgpack::type::MAP) return nullptr;
    for (std::uint32_t i = 0; i < map.via.map.size; ++i)
        if (map.via.map.ptr[i].key.type == msgpack::type::STR && key_of(map.via.map.ptr[i].key) == key)
            return &map.via.map.ptr[i].val;
    return nullptr;
}

std::string str_of(const msgpack::object* o) {
    return o && o->type == msgpack::type::STR ? std::string(o->via.str.ptr, o->via.str.size) : "";
}

// A shard's sha256: 32 bytes as the CEP has it, or already as hex text.
std::string sha_of(const msgpack::object& o) {
    if (o.type == msgpack::type::BIN && o.via.bin.size == 32) return to_hex(o.via.bin.ptr, o.via.bin.size);
    return str_of(&o);
}


bool is_hex64(const std::string& s) {
    return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// One shard to read: which subdir, which name, where it comes from.
struct Want {
    std::size_t sub;
    std::string name, hash, url;
};

// A shard's records into `sub`; returns the names they depend on or constrain.
Result<void> add_shard(ShardedSubdir& sub, const Want& w, const std::string& zst, std::set<std::string>& reached) {
    const std::string where = net::mask(w.url);
    auto raw = decompress_zstd(zst, where, kMaxShard);
    if (!raw) return unexpected(raw.error());
    auto doc = unpack(*raw, where);
    if (!doc) return unexpected(doc.error());
    if (!doc->is_object()) return fail(SourceLoc{where}, "a shard is not a map", "re-run `splitforge index` on the channel");
    for (const char* key : {"packages", "packages.conda"}) {
        auto it = doc->find(key);
        if (it == doc->end() || !it->is_object()) continue;
        json& into = std::string(key) == "packages" ? sub.packages : sub.conda;
        for (auto r = it->begin(); r != it->end(); ++r) {
            json& rec = r.value();
            for (const char* list : {"depends", "constrains"}) {
                auto deps = rec.find(list);
                if (deps == rec.end() || !deps->is_array()) continue;
                for (const auto& d : *deps)
                    if (d.is_string())
                        if (auto n = types::MatchSpec::name_of(d.get<std::string>()); !n.empty() && !str::starts_with(n, "__"))
                            reached.insert(str::lower(n));
            }
            into[r.key()] = std::move(rec);
        }
    }
    return {};
}

// Which of `names` need a shard read, and from where.
std::vector<Want> wanted(std::vector<ShardedSubdir>& subs, const std::set<std::string>& names) {
    std::vector<Want> out;
    for (std::size_t i = 0; i < subs.size(); ++i) {
        for (const auto& n : names) {
            if (!subs[i].fetched.insert(n).second) continue;
            auto it = subs[i].shards.find(n);
            if (it != subs[i].shards.end()) out.push_back({i, n, it->second, subs[i].shards_base + it->second + kSuffix});
        }
    }
    return out;
}

// The shard's bytes from the cache when they still hash to its name.
std::optional<std::string> from_cache(const fs::Dir* dir, const std::string& hash) {
    if (!dir) return std::nullopt;
    auto got = dir->read(hash + kSuffix, kMaxShard);
    if (!got || hash::sha256(*got) != hash) return std::nullopt;
    return std::move(*got);
}

// A downloaded shard, checked against its name before anything reads or keeps it.
Result<std::string> checked(const Want& w, Result<net::Response> got) {
    const std::string where = net::mask(w.url);
    if (!got) return unexpected(got.error());
    if (got->status != 200)
        return fail(SourceLoc{where}, "the shard of '" + w.name + "': " + net::status_text(got->status),
                    "the channel's shard index names a shard the server does not serve; re-run `splitforge index` on it");
    const std::string h = hash::sha256(got->body);
    if (h != w.hash)
        return fail(SourceLoc{where}, "the shard of '" + w.name + "' does not match its hash: its content's sha256 is " + h,
                    "the channel is damaged or was changed while being read; nothing of it was cached");
    return std::move(got->body);
}

}  // namespace

std::string resolve_dir_url(const std::string& of, const std::string& ref) {
    std::string out;
    if (!net::scheme_of(ref).empty()) {
        out = ref;
    } else if (!ref.empty() && ref[0] == '/') {
        auto host_end = of.find('/', of.find("://") + 3);
        out = of.substr(0, host_end) + ref;
    } else {
        std::string dir = of.substr(0, of.rfind('/') + 1);
        std::string rest = ref;
        while (true) {
            if (str::starts_with(rest, "./")) rest.erase(0, 2);
            else if (str::starts_with(rest, "../") && dir.size() > 1) {
                rest.erase(0, 3);
                auto cut = dir.rfind('/', dir.size() - 2);
                if (cut != std::string::npos && cut > dir.find("://") + 2) dir.erase(cut + 1);
            } else break;
        }
        out = dir + rest;
    }
    if (out.empty() || out.back() != '/') out += '/';
    return out;
}

Result<ShardedSubdir> read_shard_index(const ChannelRef& ch, const std::string& subdir, const std::string& index_url,
                                       const std::string& msgpack) {
    ShardedSubdir out;
    out.channel = ch;
    out.subdir = subdir;
    out.where = net::mask(index_url);
    // Read in place: tens of thousands of names are not worth a JSON document.
    auto handle = unpack_object(msgpack, out.where);
    if (!handle) return unexpected(handle.error());
    const msgpack::object& doc = handle->get();
    auto bad = [&](const std::string& what) {
        return fail(SourceLoc{out.where}, "not a shard index: " + what, "re-run `splitforge index` on the channel");
    };
    const msgpack::object* shards = member(doc, "shards");
    if (!shards || shards->type != msgpack::type::MAP) return bad("no \"shards\" map");
    const msgpack::object* info = member(doc, "info");
    if (info && info->type != msgpack::type::MAP) info = nullptr;
    out.package_base = resolve_dir_url(index_url, info ? str_of(member(*info, "base_url")) : "");
    const std::string sb = info ? str_of(member(*info, "shards_base_url")) : "";
    out.shards_base = resolve_dir_url(index_url, sb.empty() ? "./shards/" : sb);
    for (std::uint32_t i = 0; i < shards->via.map.size; ++i) {
        const auto& kv = shards->via.map.ptr[i];
        if (kv.key.type != msgpack::type::STR) return bad("a map key that is not a string");
        std::string name(key_of(kv.key));
        std::string hash = sha_of(kv.val);
        if (!is_hex64(hash)) return bad("the shard of '" + name + "' is no sha256");
        out.shards.insert_or_assign(std::move(name), std::move(hash));
    }
    return out;
}

Result<std::set<std::string>> fetch_shards(std::vector<ShardedSubdir>& subs, const std::set<std::string>& names,
                                           const stdfs::path& cache_dir, Network network) {
    std::set<std::string> reached;
    const auto want = wanted(subs, names);
    if (want.empty()) return reached;
    auto dir = fs::Dir::open(cache_dir / "shards", network == Network::online ? fs::Create::yes : fs::Create::no);
    std::vector<std::size_t> missing;  // indexes into `want`
    std::vector<net::Transfer> transfers;
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (auto hit = from_cache(dir ? &*dir : nullptr, want[i].hash)) {
            if (auto ok = add_shard(subs[want[i].sub], want[i], *hit, reached); !ok) return unexpected(ok.error());
            continue;
        }
        if (network == Network::offline)
            return fail(SourceLoc{net::mask(want[i].url)}, "offline, and the shard of '" + want[i].name + "' is not in the cache",
                        "run the same command once without --offline to fill the cache");
        missing.push_back(i);
        transfers.push_back({{want[i].url, {}, kMaxShard}, -1});
    }
    if (transfers.empty()) return reached;
    if (!dir) return unexpected(dir.error());
    auto got = net::get_all(transfers, kParallel);
    for (std::size_t k = 0; k < missing.size(); ++k) {
        const Want& w = want[missing[k]];
        auto body = checked(w, std::move(got[k]));
        if (!body) return unexpected(body.error());
        if (auto ok = add_shard(subs[w.sub], w, *body, reached); !ok) return unexpected(ok.error());
        if (auto ok = dir->write_atomic(w.hash + kSuffix, *body); !ok) return unexpected(ok.error());
    }
    return reached;
}

std::set<std::string> all_shard_names(const std::vector<ShardedSubdir>& subs) {
    std::set<std::string> out;
    for (const auto& s : subs)
        for (const auto& [name, hash] : s.shards) out.insert(name);
    return out;
}

json as_repodata(ShardedSubdir&& sub) {
    json rd = json::object();
    rd["info"] = {{"subdir", sub.subdir}};
    rd["packages"] = std::move(sub.packages);
    rd["packages.conda"] = std::move(sub.conda);
    rd["repodata_version"] = 1;
    return rd;
}

}  // namespace sf::env
