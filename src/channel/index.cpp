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
#include "types/package_record.hpp"
#include "types/platform.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

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
Result<void> index_locked(const stdfs::path& channel, const std::string& subdir, IndexStats& stats,
                          const std::map<std::string, json>& known = {}) {
    const stdfs::path dir = channel / subdir;
    std::error_code ec;
    stdfs::create_directories(dir, ec);
    // What killed writers left here (a package copy, repodata.json, the cache).
    fs::sweep_stale_temp_files(dir);
    fs::sweep_stale_temp_files(dir / ".cache");
    const stdfs::path cache_file = dir / ".cache" / "index-cache.json";
    json cache = load_cache(cache_file);
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
    if (auto r = fs::write_file_atomic(dir / "repodata.json", repodata.dump(2) + "\n"); !r)
        return unexpected(r.error());
    ++stats.subdirs;
    json cache_doc = {{"version", kCacheVersion}, {"files", new_cache}};
    if (auto r = fs::write_file_atomic(cache_file, cache_doc.dump(1)); !r) return unexpected(r.error());
    return {};
}

Result<void> ensure_noarch(const stdfs::path& channel, IndexStats& stats) {
    if (stdfs::exists(channel / "noarch" / "repodata.json")) return {};
    return index_locked(channel, "noarch", stats);
}

stdfs::path lock_path(const stdfs::path& channel) { return channel / ".index.lock"; }

Result<void> copy_atomic(const stdfs::path& from, const stdfs::path& to) {
    static std::atomic<unsigned> counter{0};
    stdfs::path tmp = to.parent_path() / ("." + to.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                                          std::to_string(counter++));
    std::error_code ec;
    if (auto r = fs::copy_file(from, tmp, fs::Overwrite::no); !r) {
        stdfs::remove(tmp, ec);
        Error e = r.error();  // keeps its kind: a write that failed is a runtime failure
        e.loc = SourceLoc{to.string()};
        e.message = "cannot copy package into the channel: " + e.message;
        return unexpected(std::move(e));
    }
    int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
    if (::rename(tmp.c_str(), to.c_str()) != 0) {
        int e = errno;
        stdfs::remove(tmp, ec);
        return fail(SourceLoc{to.string()}, std::string("cannot move package into the channel: ") + std::strerror(e));
    }
    return {};
}

}  // namespace

Result<json> package_record(const stdfs::path& pkg) {
    if (auto k = archive::package_format(pkg); !k) return unexpected(k.error());
    auto text = archive::read_package_member(pkg, "info/index.json");
    if (!text) return unexpected(text.error());
    json record;
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
    fs::FileLock lock(lock_path(channel));
    if (auto r = index_locked(channel, subdir, stats); !r) return unexpected(r.error());
    if (subdir != "noarch") {
        if (auto r = ensure_noarch(channel, stats); !r) return unexpected(r.error());
    }
    return stats;
}

Result<IndexStats> index_channel(const stdfs::path& channel) {
    std::error_code ec;
    if (!stdfs::is_directory(channel, ec))
        return fail(SourceLoc{channel.string()}, "channel directory does not exist");
    IndexStats stats;
    fs::FileLock lock(lock_path(channel));
    // What killed writers left (`package --channel`, an index): swept.
    fs::sweep_stale_temp_files(channel);
    std::vector<std::string> subdirs{"noarch"};
    for (stdfs::directory_iterator it(channel, ec), end; !ec && it != end; it.increment(ec)) {
        std::string n = it->path().filename().string();
        if (n.empty() || n[0] == '.' || n == "noarch" || !it->is_directory(ec)) continue;
        if (types::Platform::parse(n) || !package_files(it->path()).empty()) subdirs.push_back(n);
    }
    std::sort(subdirs.begin(), subdirs.end());
    for (const auto& s : subdirs) {
        if (auto r = index_locked(channel, s, stats); !r) return unexpected(r.error());
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
    std::error_code ec;
    stdfs::create_directories(dest.parent_path(), ec);
    // The copy too is under the lock: two adds of one file name with other
    // bytes must not index one's record for the other's file.
    fs::FileLock lock(lock_path(channel));
    if (auto r = copy_atomic(pkg, dest); !r) return unexpected(r.error());
    IndexStats stats;
    if (auto r = index_locked(channel, subdir, stats, {{pkg.filename().string(), *record}}); !r)
        return unexpected(r.error());
    if (subdir != "noarch") {
        if (auto r = ensure_noarch(channel, stats); !r) return unexpected(r.error());
    }
    return dest;
}

}  // namespace sf::channel
