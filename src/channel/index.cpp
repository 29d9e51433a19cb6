#include "channel/index.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "archive/read.hpp"
#include "channel/shards.hpp"
#include "types/package_record.hpp"
#include "types/platform.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"
#include "types/json_fields.hpp"

namespace sf::channel {

namespace stdfs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kCacheVersion = 1;

bool is_package_name(const std::string& n) {
    return !n.empty() && n[0] != '.' && (str::ends_with(n, ".conda") || str::ends_with(n, ".tar.bz2"));
}

// What identifies an unchanged file: size, mtime (ns) and inode.
struct Stamp {
    std::uint64_t size = 0, mtime_ns = 0, inode = 0;
    bool operator==(const Stamp&) const = default;
    json to_json() const { return {{"size", size}, {"mtime_ns", mtime_ns}, {"inode", inode}}; }
};

std::optional<Stamp> stamp_of(const stdfs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return std::nullopt;
    return Stamp{static_cast<std::uint64_t>(st.st_size),
                 static_cast<std::uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
                     static_cast<std::uint64_t>(st.st_mtim.tv_nsec),
                 static_cast<std::uint64_t>(st.st_ino)};
}

std::optional<Stamp> stamp_from(const json& j) {
    try {
        return Stamp{j.at("size").get<std::uint64_t>(), j.at("mtime_ns").get<std::uint64_t>(),
                     j.at("inode").get<std::uint64_t>()};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

json load_cache(const stdfs::path& file) {
    auto text = fs::read_file(file);
    if (!text) return json::object();
    if (types::json_too_deep(*text)) return json::object();  // rebuilt, as a damaged cache is
    try {
        json j = json::parse(*text);
        if (j.value("version", 0) == kCacheVersion && j.contains("files") && j["files"].is_object())
            return j["files"];
    } catch (const std::exception&) {
        // A damaged cache is rebuilt.
    }
    return json::object();
}

std::vector<std::string> package_files(const stdfs::path& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string n = it->path().filename().string();
        if (is_package_name(n) && it->is_regular_file(ec)) out.push_back(n);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Assumes the channel lock is held. `known` are records the caller already
// computed for files it just placed (so they are not hashed again).
// The subdir and its .cache are opened below the channel without following a
// symlink, so a planted link never redirects a write or the sweep.
Result<void> index_locked(const fs::Dir& channel, const std::string& subdir, IndexStats& stats,
                          const std::map<std::string, json>& known = {}) {
    auto sub = channel.sub(subdir, fs::Create::yes);
    if (!sub) return unexpected(sub.error());
    auto cache_dir = sub->sub(".cache", fs::Create::yes);
    if (!cache_dir) return unexpected(cache_dir.error());
    const stdfs::path dir = sub->path();
    // What killed writers left here (a package copy, repodata.json, the cache).
    sub->sweep_stale_temps();
    cache_dir->sweep_stale_temps();
    json cache = load_cache(cache_dir->path() / "index-cache.json");
    json new_cache = json::object();
    json packages = json::object(), conda = json::object();
    for (const auto& name : package_files(dir)) {
        const stdfs::path p = dir / name;
        auto st = stamp_of(p);
        if (!st) continue;  // removed meanwhile
        json record;
        auto k = known.find(name);
        if (k != known.end()) {
            record = k->second;
        } else if (cache.contains(name) && stamp_from(cache[name]) == *st && cache[name].contains("record")) {
            record = cache[name]["record"];
            ++stats.cached;
        } else {
            auto r = package_record(p);
            if (!r) {
                stats.warnings.push_back(subdir + "/" + name + ": skipped: " + r.error().str());
                continue;
            }
            record = std::move(*r);
            ++stats.hashed;
        }
        // Cached records are checked too: the cache file lives in the channel.
        auto checked = types::PackageRecord::from_json(record, subdir + "/" + name + ": info/index.json");
        if (!checked) {
            stats.warnings.push_back(subdir + "/" + name + ": skipped: " + checked.error().str());
            continue;
        }
        // The cache file lives in the channel: a record in it must still name its file.
        const auto version = record.find("version");
        if (version == record.end() || !version->is_string() ||
            checked->name + "-" + version->get<std::string>() + "-" + checked->build != archive::package_stem(p)) {
            stats.warnings.push_back(subdir + "/" + name + ": skipped: file name does not match its index.json");
            continue;
        }
        if (!digests_are_hex(record)) {  // a shard stores them as bytes
            stats.warnings.push_back(subdir + "/" + name + ": skipped: its md5 or sha256 is not lowercase hex");
            continue;
        }
        if (checked->subdir != subdir) {
            stats.warnings.push_back(subdir + "/" + name + ": skipped: its subdir is '" + checked->subdir +
                                     "', not '" + subdir + "'");
            continue;
        }
        json entry = st->to_json();
        entry["record"] = record;
        new_cache[name] = std::move(entry);
        (str::ends_with(name, ".conda") ? conda : packages)[name] = std::move(record);
        ++stats.packages;
    }
    json repodata = {{"info", {{"subdir", subdir}}},
                     {"packages", packages},
                     {"packages.conda", conda},
                     {"removed", json::array()},
                     {"repodata_version", 1}};
    const std::string text = repodata.dump(2) + "\n";
    // Shards, their index and repodata.json.zst first; repodata.json last, as
    // before; shards nothing names any more go once the new index is in place.
    ShardStats shard_stats;
    auto live = write_fast_repodata(*sub, *cache_dir, repodata, text, shard_stats);
    if (!live) return unexpected(live.error());
    if (auto r = sub->write_atomic("repodata.json", text); !r) return unexpected(r.error());
    ++stats.subdirs;
    json cache_doc = {{"version", kCacheVersion}, {"files", new_cache}};
    if (auto r = cache_dir->write_atomic("index-cache.json", cache_doc.dump(1)); !r) return unexpected(r.error());
    remove_stale_shards(*sub, *live, shard_stats);
    stats.shards_written += shard_stats.written;
    stats.shards_reused += shard_stats.reused;
    stats.shards_removed += shard_stats.removed;
    return {};
}

Result<void> ensure_noarch(const fs::Dir& channel, IndexStats& stats) {
    if (stdfs::exists(channel.path() / "noarch" / "repodata.json")) return {};
    return index_locked(channel, "noarch", stats);
}

stdfs::path lock_path(const stdfs::path& channel) { return channel / ".index.lock"; }

// Copied under a temp name into the subdir (opened without following a
// symlink), then renamed into place.
Result<void> copy_atomic(const stdfs::path& from, const fs::Dir& channel, const std::string& subdir) {
    const std::string fn = from.filename().string();
    auto dir = channel.sub(subdir, fs::Create::yes);
    if (!dir) return unexpected(dir.error());
    const std::string tmp = fs::temp_name(fn);
    if (auto r = fs::copy_file(from, dir->path() / tmp, fs::Overwrite::no); !r) {
        (void)dir->remove(tmp);
        Error e = r.error();  // keeps its kind: a write that failed is a runtime failure
        e.loc = SourceLoc{(dir->path() / fn).string()};
        e.message = "cannot copy package into the channel: " + e.message;
        return unexpected(std::move(e));
    }
    if (auto fd = dir->open_file(tmp)) {
        ::fsync(*fd);
        ::close(*fd);
    }
    if (auto r = dir->rename(tmp, fn); !r) {
        (void)dir->remove(tmp);
        return unexpected(r.error());
    }
    return {};
}

}  // namespace

Result<json> package_record(const stdfs::path& pkg) {
    if (auto k = archive::package_format(pkg); !k) return unexpected(k.error());
    auto text = archive::read_package_member(pkg, "info/index.json");
    if (!text) return unexpected(text.error());
    json record;
    if (types::json_too_deep(*text))
        return fail(SourceLoc{pkg.string()}, "info/index.json is nested more than " + std::to_string(types::kMaxJsonDepth) +
                                                 " levels deep");
    try {
        record = json::parse(*text);
    } catch (const std::exception& e) {
        return fail(SourceLoc{pkg.string()}, std::string("info/index.json is not valid JSON: ") + e.what());
    }
    if (!record.is_object()) return fail(SourceLoc{pkg.string()}, "info/index.json is not a JSON object");
    auto checked = types::PackageRecord::from_json(record, pkg.string() + ": info/index.json");
    if (!checked) return unexpected(checked.error());
    // The version as written: Version keeps it in lower case.
    const std::string stem = checked->name + "-" + record["version"].get<std::string>() + "-" + checked->build;
    if (stem != archive::package_stem(pkg))
        return fail(SourceLoc{pkg.string()}, "file name does not match its index.json (" + stem + ")",
                    "name package files <name>-<version>-<build>");
    auto d = hash::file_digests(pkg);
    if (!d) return unexpected(d.error());
    record["md5"] = d->md5;
    record["sha256"] = d->sha256;
    record["size"] = d->size;
    return record;
}

Result<IndexStats> index_subdir(const stdfs::path& channel, const std::string& subdir) {
    IndexStats stats;
    auto ch = fs::Dir::open(channel, fs::Create::yes);
    if (!ch) return unexpected(ch.error());
    fs::FileLock lock(lock_path(channel));
    if (auto r = index_locked(*ch, subdir, stats); !r) return unexpected(r.error());
    if (subdir != "noarch") {
        if (auto r = ensure_noarch(*ch, stats); !r) return unexpected(r.error());
    }
    return stats;
}

Result<IndexStats> index_channel(const stdfs::path& channel) {
    std::error_code ec;
    if (!stdfs::is_directory(channel, ec))
        return fail(SourceLoc{channel.string()}, "channel directory does not exist");
    IndexStats stats;
    auto ch = fs::Dir::open(channel);
    if (!ch) return unexpected(ch.error());
    fs::FileLock lock(lock_path(channel));
    // What killed writers left (`package --channel`, an index): swept.
    ch->sweep_stale_temps();
    std::vector<std::string> subdirs{"noarch"};
    for (stdfs::directory_iterator it(channel, ec), end; !ec && it != end; it.increment(ec)) {
        std::string n = it->path().filename().string();
        if (n.empty() || n[0] == '.' || n == "noarch" || !it->is_directory(ec)) continue;
        if (it->is_symlink(ec)) {  // written through, it would index (and sweep) another directory
            stats.warnings.push_back(n + ": skipped: is a symlink; splitforge writes only into real directories");
            continue;
        }
        if (types::Platform::parse(n) || !package_files(it->path()).empty()) subdirs.push_back(n);
    }
    std::sort(subdirs.begin(), subdirs.end());
    for (const auto& s : subdirs) {
        if (auto r = index_locked(*ch, s, stats); !r) return unexpected(r.error());
    }
    return stats;
}

Result<stdfs::path> add_package(const stdfs::path& channel, const stdfs::path& pkg) {
    auto record = package_record(pkg);
    if (!record) return unexpected(record.error());
    const std::string subdir = record->value("subdir", "");
    if (!types::Platform::parse(subdir))
        return fail(SourceLoc{pkg.string()}, "index.json has unknown subdir '" + subdir + "'");
    const stdfs::path dest = channel / subdir / pkg.filename();
    auto ch = fs::Dir::open(channel, fs::Create::yes);
    if (!ch) return unexpected(ch.error());
    // The copy too is under the lock: two adds of one file name with other
    // bytes must not index one's record for the other's file.
    fs::FileLock lock(lock_path(channel));
    if (auto r = copy_atomic(pkg, *ch, subdir); !r) return unexpected(r.error());
    IndexStats stats;
    if (auto r = index_locked(*ch, subdir, stats, {{pkg.filename().string(), *record}}); !r)
        return unexpected(r.error());
    if (subdir != "noarch") {
        if (auto r = ensure_noarch(*ch, stats); !r) return unexpected(r.error());
    }
    return dest;
}

namespace {

// The sha256 of what already lies at `dest` ("" when nothing does).
Result<std::string> existing_sha256(const stdfs::path& dest) {
    std::error_code ec;
    if (!stdfs::exists(stdfs::symlink_status(dest, ec))) return std::string();
    return hash::file_sha256(dest);
}

}  // namespace

Result<std::vector<Added>> add_packages(const stdfs::path& channel, const std::vector<stdfs::path>& pkgs,
                                        Existing existing) {
    std::vector<json> records;
    for (const auto& pkg : pkgs) {
        auto record = package_record(pkg);
        if (!record) return unexpected(record.error());
        if (!types::Platform::parse(record->value("subdir", "")))
            return fail(SourceLoc{pkg.string()}, "index.json has unknown subdir '" + record->value("subdir", "") + "'");
        records.push_back(std::move(*record));
    }
    auto ch = fs::Dir::open(channel, fs::Create::yes);
    if (!ch) return unexpected(ch.error());
    fs::FileLock lock(lock_path(channel));
    std::vector<Added> out;
    for (std::size_t i = 0; i < pkgs.size(); ++i) {
        const stdfs::path dest = channel / records[i]["subdir"].get<std::string>() / pkgs[i].filename();
        auto old = existing_sha256(dest);
        if (!old) return unexpected(old.error());
        Added a{dest, old->empty() ? Added::How::added : *old == records[i]["sha256"] ? Added::How::unchanged : Added::How::replaced};
        if (a.how == Added::How::replaced && existing == Existing::refuse)
            return fail(SourceLoc{dest.string()}, "exists with other content; not replacing it", "use --force to replace it");
        out.push_back(a);
    }
    std::map<std::string, std::map<std::string, json>> touched;
    for (std::size_t i = 0; i < pkgs.size(); ++i) {
        if (out[i].how == Added::How::unchanged) continue;
        const std::string subdir = records[i]["subdir"];
        if (auto r = copy_atomic(pkgs[i], *ch, subdir); !r) return unexpected(r.error());
        touched[subdir][pkgs[i].filename().string()] = records[i];
    }
    IndexStats stats;
    for (const auto& [subdir, known] : touched)
        if (auto r = index_locked(*ch, subdir, stats, known); !r) return unexpected(r.error());
    if (auto r = ensure_noarch(*ch, stats); !r) return unexpected(r.error());
    return out;
}

}  // namespace sf::channel
