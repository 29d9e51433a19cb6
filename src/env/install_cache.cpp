// The package cache: <pkgs_dir>/<sha256>/ holds one extracted package.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>

#include <map>
#include <random>

#include "archive/read.hpp"
#include "env/install_detail.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::env::detail {
namespace {

std::string random_suffix() {
    std::random_device rd;
    std::string s;
    for (int i = 0; i < 8; ++i) s += "0123456789abcdef"[rd() % 16];
    return s;
}

// paths.json, or for old packages info/files (+ info/has_prefix).
Result<types::PathsJson> read_paths(const stdfs::path& dir, const std::string& what) {
    std::error_code ec;
    if (stdfs::exists(dir / "info/paths.json", ec)) {
        auto text = fs::read_file(dir / "info/paths.json");
        if (!text) return Unexpected<Error>{text.error()};
        return types::PathsJson::parse(*text, what + ": info/paths.json");
    }
    auto files = fs::read_file(dir / "info/files");
    if (!files) return fail(what + ": has neither info/paths.json nor info/files");
    // What these list ends up in the conda-meta record, which is JSON.
    if (!str::is_valid_utf8(*files)) return fail(what + ": info/files is not valid UTF-8");
    std::map<std::string, std::pair<std::string, types::FileMode>> prefixed;
    if (stdfs::exists(dir / "info/has_prefix", ec)) {
        auto hp = fs::read_file(dir / "info/has_prefix");
        if (!hp) return Unexpected<Error>{hp.error()};
        if (!str::is_valid_utf8(*hp)) return fail(what + ": info/has_prefix is not valid UTF-8");
        for (const auto& line : str::split_lines(*hp)) {
            auto parts = str::split(std::string(str::trim(line)), ' ');
            if (parts.size() == 3)
                prefixed[parts[2]] = {parts[0], parts[1] == "binary" ? types::FileMode::binary : types::FileMode::text};
            else if (parts.size() == 1 && !parts[0].empty())
                prefixed[parts[0]] = {"/opt/anaconda1anaconda2anaconda3", types::FileMode::text};
        }
    }
    types::PathsJson out;
    for (const auto& line : str::split_lines(*files)) {
        std::string p(str::trim(line));
        if (p.empty()) continue;
        types::PathEntry e;
        e.path = p;
        e.type = stdfs::is_symlink(dir / p, ec) ? types::PathType::softlink : types::PathType::hardlink;
        if (auto it = prefixed.find(p); it != prefixed.end()) {
            e.prefix_placeholder = it->second.first;
            e.file_mode = it->second.second;
        }
        out.paths.push_back(std::move(e));
    }
    return out;
}

// Every path paths.json declares is in the extracted tree, with the right type,
// size and sha256.
Result<void> verify_tree(const stdfs::path& dir, const types::PathsJson& paths, const std::string& what) {
    for (const auto& e : paths.paths) {
        auto rel = archive::safe_member_path(e.path);
        if (!rel) return fail(what + ": info/paths.json: " + rel.error().message);
        stdfs::path p = dir / *rel;
        struct stat st{};
        if (::lstat(p.c_str(), &st) != 0)
            return fail(what + ": info/paths.json lists '" + e.path + "', which is not in the archive");
        switch (e.type) {
            case types::PathType::directory:
                if (!S_ISDIR(st.st_mode)) return fail(what + ": '" + e.path + "' should be a directory");
                break;
            case types::PathType::softlink:
                if (!S_ISLNK(st.st_mode)) return fail(what + ": '" + e.path + "' is declared softlink but is not a symlink");
                break;
            case types::PathType::hardlink: {
                if (!S_ISREG(st.st_mode))
                    return fail(what + ": '" + e.path + "' is declared as a file (hardlink) but is not a regular file");
                if (e.size && *e.size != static_cast<std::uint64_t>(st.st_size))
                    return fail(what + ": '" + e.path + "' has " + std::to_string(st.st_size) +
                                " bytes but info/paths.json says " + std::to_string(*e.size));
                if (!e.sha256.empty()) {
                    auto sha = hash::file_sha256(p);
                    if (!sha) return Unexpected<Error>{sha.error()};
                    if (*sha != e.sha256)
                        return fail(what + ": '" + e.path + "' has sha256 " + *sha + " but info/paths.json says " +
                                    e.sha256);
                }
                break;
            }
        }
    }
    return {};
}

}  // namespace

void sweep_cache(const stdfs::path& pkgs_dir) {
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(pkgs_dir, ec)) {
        std::string name = e.path().filename().string();
        std::string bare = name.substr(name.find_first_not_of('.') == std::string::npos ? 0 : name.find_first_not_of('.'));
        if (!str::starts_with(bare, "staging-") && !str::starts_with(bare, "stale-")) continue;
        auto parts = str::split(bare, '-');  // staging, <sha256>, <pid>, <random>[.extract-...]
        if (parts.size() < 4) continue;
        char* end = nullptr;
        long pid = std::strtol(parts[2].c_str(), &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // still running
        std::error_code rec;
        stdfs::remove_all(e.path(), rec);
    }
}

Result<CachedPackage> fetch(const Candidate& c, const stdfs::path& pkgs_dir) {
    CachedPackage out;
    out.candidate = c;
    const auto& rec = c.record;
    std::string what = c.file.string();
    std::error_code ec;
    if (auto ok = check_candidate(c); !ok) return Unexpected<Error>{ok.error()};

    // The archive is always checked against the repodata; the cache is keyed
    // by the hash we computed, never by one we were told.
    if (!stdfs::is_regular_file(c.file, ec))
        return fail(what + ": package file not found" +
                    (c.origin == Origin::channel ? " (listed in the channel's repodata.json)" : ""));
    auto d = hash::file_digests(c.file);
    if (!d) return Unexpected<Error>{d.error()};
    if (!rec.sha256.empty() && d->sha256 != rec.sha256)
        return fail(what + ": sha256 mismatch: repodata.json says " + rec.sha256 + ", the file has " + d->sha256,
                    "the channel index is stale or the file is corrupt; re-run `splitforge index`");
    if (rec.size && *rec.size != d->size)
        return fail(what + ": size mismatch: repodata.json says " + std::to_string(*rec.size) +
                    " bytes, the file has " + std::to_string(d->size));
    if (!rec.md5.empty() && d->md5 != rec.md5)
        return fail(what + ": md5 mismatch: repodata.json says " + rec.md5 + ", the file has " + d->md5);
    out.sha256 = d->sha256;
    out.md5 = d->md5;
    out.size = d->size;
    out.dir = pkgs_dir / out.sha256;

    // A cache entry must be a real directory whose files still match its
    // paths.json (a hardlinked file edited in some prefix changes it too);
    // otherwise it is replaced by a fresh extraction.
    struct stat st{};
    if (::lstat(out.dir.c_str(), &st) == 0) {
        bool good = S_ISDIR(st.st_mode);
        if (good) {
            auto paths = read_paths(out.dir, what);
            good = paths && verify_tree(out.dir, *paths, what);
        }
        if (!good) {
            stdfs::path stale = pkgs_dir / (".stale-" + out.sha256 + "-" + std::to_string(::getpid()) + "-" + random_suffix());
            if (::rename(out.dir.c_str(), stale.c_str()) == 0) stdfs::remove_all(stale, ec);
        }
    }

    if (::lstat(out.dir.c_str(), &st) != 0) {
        stdfs::create_directories(pkgs_dir, ec);
        if (ec) return fail(pkgs_dir.string() + ": cannot create the package cache: " + ec.message());
        stdfs::path staging = pkgs_dir / (".staging-" + out.sha256 + "-" + std::to_string(::getpid()) + "-" + random_suffix());
        auto ex = archive::extract_package(c.file, staging);
        if (!ex) return Unexpected<Error>{ex.error()};
        auto paths = read_paths(staging, what);
        Result<void> ok = paths ? verify_tree(staging, *paths, what) : Result<void>(Unexpected<Error>{paths.error()});
        if (!ok) {
            stdfs::remove_all(staging, ec);
            return Unexpected<Error>{ok.error()};
        }
        // Another process may have put the same package there meanwhile: fine.
        if (::rename(staging.c_str(), out.dir.c_str()) != 0) stdfs::remove_all(staging, ec);
        if (::lstat(out.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            return fail(out.dir.string() + ": cannot move the extracted package into the cache");
    }
    // The file must be the package the channel says it is (depends may differ:
    // repodata patches edit those).
    if (c.origin == Origin::channel) {
        auto text = fs::read_file(out.dir / "info/index.json");
        if (!text) return Unexpected<Error>{text.error()};
        auto j = nlohmann::json::parse(*text, nullptr, false);
        if (j.is_discarded()) return fail(what + ": info/index.json is not valid JSON");
        auto idx = types::PackageRecord::from_json(j, what + ": info/index.json");
        if (!idx) return Unexpected<Error>{idx.error()};
        if (idx->dist_name() != rec.dist_name())
            return fail(what + ": info/index.json says " + idx->dist_name() + " but the channel's repodata.json says " +
                        rec.dist_name());
    }
    auto paths = read_paths(out.dir, what);
    if (!paths) return Unexpected<Error>{paths.error()};
    out.paths = std::move(*paths);
    return out;
}

}  // namespace sf::env::detail
