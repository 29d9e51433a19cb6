#include "publish/remote.hpp"

#include "channel/shards.hpp"
#include "types/json_fields.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::publish::detail {

namespace stdfs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::uint64_t kMaxRepodata = std::uint64_t{1} << 30;

// Whether what lies at `key` holds `item`'s bytes: its size, then the sha256
// we stored beside it or its MD5 ETag, else its bytes fetched and hashed.
Result<bool> same_content(Store& store, const Item& item, const RemoteObject& o) {
    if (o.size != item.size) return false;
    if (!o.sha256.empty()) return o.sha256 == item.sha256;
    if (!o.md5.empty()) return o.md5 == item.md5;
    auto got = store.get(item.key, item.size + 1);
    if (!got) return unexpected(got.error());
    return got->has_value() && hash::sha256(**got) == item.sha256;
}

Result<json> remote_repodata(Store& store, const std::string& subdir) {
    const std::string key = subdir + "/repodata.json";
    auto got = store.get(key, kMaxRepodata);
    if (!got) return unexpected(got.error());
    json j = {{"info", {{"subdir", subdir}}}, {"packages", json::object()}, {"packages.conda", json::object()},
              {"removed", json::array()}, {"repodata_version", 1}};
    if (!got->has_value()) return j;
    if (types::json_too_deep(**got))
        return fail(SourceLoc{store.shown(key)}, "is nested more than " + std::to_string(types::kMaxJsonDepth) + " levels deep");
    json old;
    try {
        old = json::parse(**got);
    } catch (const std::exception& e) {
        return fail(SourceLoc{store.shown(key)}, std::string("is not valid JSON: ") + e.what(),
                    "remove it or write it again; splitforge merges new records into it");
    }
    if (!old.is_object()) return fail(SourceLoc{store.shown(key)}, "is not a JSON object");
    for (const char* section : {"packages", "packages.conda"})
        if (old.contains(section) && old[section].is_object()) j[section] = old[section];
    return j;
}

// What `splitforge index` writes beside repodata.json, sent before it:
// CEP-16 shards (content-named, so one already there is left alone), the
// shard index, repodata.json.zst. Clients read those first, so a stale pair
// from an earlier index would otherwise hide the new repodata.json. Made
// with channel's own writer in a temp dir, then sent.
Result<void> put_fast_forms(Store& store, const std::string& subdir, const json& repodata, const std::string& text) {
    fs::TempDir tmp("remote-index");
    auto sub = fs::Dir::open(tmp.path() / "sub", fs::Create::yes);
    if (!sub) return unexpected(sub.error());
    auto cache = fs::Dir::open(tmp.path() / "cache", fs::Create::yes);
    if (!cache) return unexpected(cache.error());
    bool hex = true;
    for (const char* section : {"packages", "packages.conda"})
        for (const auto& [fn, rec] : repodata[section].items()) hex = hex && channel::digests_are_hex(rec);
    std::vector<std::string> files = {"repodata.json.zst"};
    if (hex) {  // shards carry the digests as bytes
        channel::ShardStats stats;
        auto live = channel::write_fast_repodata(*sub, *cache, repodata, text, stats);
        if (!live) return unexpected(live.error());
        for (const auto& h : *live) {
            const std::string key = subdir + "/shards/" + h + ".msgpack.zst";
            auto there = store.head(key);
            if (!there) return unexpected(there.error());
            if (!there->has_value())
                if (auto r = store.put_file(key, tmp.path() / "sub/shards" / (h + ".msgpack.zst"), h); !r) return r;
        }
        files.insert(files.begin(), "repodata_shards.msgpack.zst");
    } else {
        auto z = channel::compress_repodata(text, store.shown(subdir + "/repodata.json.zst"));
        if (!z) return unexpected(z.error());
        if (auto r = sub->write_atomic("repodata.json.zst", *z); !r) return unexpected(r.error());
    }
    for (const auto& f : files) {
        auto sha = hash::file_sha256(tmp.path() / "sub" / f);
        if (!sha) return unexpected(sha.error());
        if (auto r = store.put_file(subdir + "/" + f, tmp.path() / "sub" / f, *sha); !r) return r;
    }
    return {};
}

Result<void> put_repodata(Store& store, const std::string& subdir, const json& repodata) {
    const std::string text = repodata.dump(2) + "\n";
    if (auto r = put_fast_forms(store, subdir, repodata, text); !r) return r;
    return store.put_bytes(subdir + "/repodata.json", text, "application/json");
}

}  // namespace

Result<std::vector<std::string>> index_remote(Store& store, const std::map<std::string, std::map<std::string, json>>& records) {
    std::vector<std::string> written;
    if (!records.count("noarch")) {
        auto noarch = store.head("noarch/repodata.json");
        if (!noarch) return unexpected(noarch.error());
        if (!noarch->has_value()) {
            auto empty = remote_repodata(store, "noarch");
            if (!empty) return unexpected(empty.error());
            if (auto r = put_repodata(store, "noarch", *empty); !r) return unexpected(r.error());
            written.push_back(store.shown("noarch/repodata.json"));
        }
    }
    for (const auto& [subdir, recs] : records) {
        auto repodata = remote_repodata(store, subdir);
        if (!repodata) return unexpected(repodata.error());
        for (const auto& [file, record] : recs) (*repodata)[str::ends_with(file, ".conda") ? "packages.conda" : "packages"][file] = record;
        if (auto r = put_repodata(store, subdir, *repodata); !r) return unexpected(r.error());
        written.push_back(store.shown(subdir + "/repodata.json"));
    }
    return written;
}

Result<UploadReport> upload_to_store(Store& store, const Plan& plan, const UploadOptions& opts) {
    UploadReport report;
    // Every key first: nothing is sent when one is refused.
    for (const auto& item : plan.items) {
        UploadLine line{item.file.filename().string(), store.shown(item.key), "uploaded"};
        if (opts.dry_run == DryRun::no) {
            auto o = store.head(item.key);
            if (!o) return unexpected(o.error());
            if (o->has_value()) {
                auto same = same_content(store, item, **o);
                if (!same) return unexpected(same.error());
                if (!*same && opts.replace == Replace::no)
                    return fail(SourceLoc{line.dest}, "exists with other content; not replacing it", "use --force to replace it");
                line.action = *same ? "unchanged" : "replaced";
            }
        } else {
            line.action = "would upload";
        }
        report.files.push_back(line);
    }
    std::map<std::string, std::map<std::string, json>> records;
    for (std::size_t i = 0; i < plan.items.size(); ++i) {
        const Item& item = plan.items[i];
        if (plan.kind == Plan::Kind::conda) records[item.record.value("subdir", "")][item.file.filename().string()] = item.record;
        if (opts.dry_run == DryRun::yes || report.files[i].action == "unchanged") continue;
        if (auto r = store.put_file(item.key, item.file, item.sha256); !r) return unexpected(r.error());
        // PEP 658: the wheel's METADATA beside it.
        if (plan.kind == Plan::Kind::wheels)
            if (auto r = store.put_bytes(item.key + ".metadata", item.metadata, "text/plain"); !r) return unexpected(r.error());
    }
    if (plan.kind != Plan::Kind::conda || opts.index == RemoteIndex::no) return report;
    if (opts.dry_run == DryRun::yes) {
        for (const auto& [subdir, _] : records) report.indexed.push_back(store.shown(subdir + "/repodata.json"));
        return report;
    }
    bool changed = false;
    for (const auto& f : report.files) changed = changed || f.action != "unchanged";
    if (!changed) return report;  // the same content: a no-op, the index included
    auto written = index_remote(store, records);
    if (!written) return unexpected(written.error());
    report.indexed = std::move(*written);
    return report;
}

}  // namespace sf::publish::detail
