// The package cache: <pkgs_dir>/<sha256>/ holds one extracted package.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <map>
#include <unordered_set>

#include "archive/read.hpp"
#include "core/rewrap.hpp"
#include "env/install_detail.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::env::detail {
namespace {

// Removes a staging directory on every way out but a successful rename
// (which clears `path`).
struct StagingDir {
    stdfs::path path;
    explicit StagingDir(stdfs::path p) : path(std::move(p)) {}
    StagingDir(const StagingDir&) = delete;
    StagingDir& operator=(const StagingDir&) = delete;
    ~StagingDir() {
        std::error_code ec;
        if (!path.empty()) stdfs::remove_all(path, ec);
    }
};

// A path listed twice would be verified, linked and recorded once per
// listing (300k listings of one file: minutes, a 44 MB conda-meta record and
// 300k clobber warnings); no builder writes that, so the package is refused.
Result<types::PathsJson> unique_paths(types::PathsJson paths, const std::string& what, const char* file) {
    std::unordered_set<std::string> seen;
    seen.reserve(paths.paths.size());
    for (const auto& e : paths.paths) {
        auto rel = archive::safe_member_path(e.path);
        if (rel && !seen.insert(*rel).second)
            return fail(what + ": " + file + " lists '" + *rel + "' more than once",
                        "the package is damaged or hostile; do not install it");
    }
    return paths;
}

// paths.json, or for old packages info/files (+ info/has_prefix).
Result<types::PathsJson> read_paths(const stdfs::path& dir, const std::string& what) {
    std::error_code ec;
    if (stdfs::exists(dir / "info/paths.json", ec)) {
        auto text = fs::read_file(dir / "info/paths.json");
        if (!text) return Unexpected<Error>{text.error()};
        auto paths = types::PathsJson::parse(*text, what + ": info/paths.json");
        if (!paths) return paths;
        return unique_paths(std::move(*paths), what, "info/paths.json");
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
    return unique_paths(std::move(out), what, "info/files");
}

Result<std::string> sha256_of(int fd, const std::string& where) {
    hash::Hasher h(hash::Algo::sha256);
    char buf[1 << 16];
    while (true) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_runtime(SourceLoc{where}, std::string("cannot read: ") + std::strerror(errno));
        if (n == 0) break;
        h.update(std::string_view(buf, static_cast<std::size_t>(n)));
    }
    return h.hex();
}

// Whether a reused entry's files must all carry a sha256 to compare with.
enum class Trust { fresh_extraction, reused_entry };

// Every path paths.json declares is in the extracted tree `root`, with the
// right type, size and sha256, reached without following any symlink (a
// planted entry with a symlinked parent would have the installer hard-link a
// file from outside the cache). A reused entry is checked against the
// archive's own paths.json, and each of its files must have a sha256 there.
Result<void> verify_tree(const fs::Dir& root, const types::PathsJson& paths, const std::string& what, Trust trust) {
    std::map<std::string, fs::Dir> dirs;  // parent -> handle, opened once each
    for (const auto& e : paths.paths) {
        auto rel = archive::safe_member_path(e.path);
        if (!rel) return fail(what + ": info/paths.json: " + rel.error().message);
        const stdfs::path relp(*rel);
        const std::string parent = relp.parent_path().string(), name = relp.filename().string();
        auto it = dirs.find(parent);
        if (it == dirs.end()) {
            auto d = root.sub(parent);
            if (!d && d.error().message == "no such directory")
                return fail(what + ": info/paths.json lists '" + e.path + "', which is not in the archive");
            if (!d) return rewrap(d.error(), {}, what + ": '" + e.path + "': " + d.error().loc.str() + ": ");
            it = dirs.emplace(parent, std::move(*d)).first;
        }
        struct stat st{};
        if (::fstatat(it->second.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
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
                if (e.sha256.empty() && trust == Trust::reused_entry)
                    return fail(what + ": '" + e.path + "' has no sha256 in info/paths.json to check the cache entry by");
                if (e.sha256.empty()) break;
                int fd = ::openat(it->second.fd(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0) return fail(what + ": '" + e.path + "': cannot open: " + std::strerror(errno));
                auto sha = sha256_of(fd, e.path);
                ::close(fd);
                if (!sha) return Unexpected<Error>{sha.error()};
                if (*sha != e.sha256)
                    return fail(what + ": '" + e.path + "' has sha256 " + *sha + " but info/paths.json says " + e.sha256);
                break;
            }
        }
    }
    return {};
}

// A cache entry is reused only when it is a real directory whose every file
// matches the archive's own info/paths.json (the entry's copy could have been
// planted with it); anything else is extracted afresh.
bool reusable(const fs::Dir& pkgs, const std::string& sha256, const archive::PackageMetadata& md,
              const std::string& what) {
    if (!md.paths) return false;  // info/files only: nothing to check a reused entry by
    auto entry = pkgs.sub(sha256);
    return entry && verify_tree(*entry, *md.paths, what, Trust::reused_entry);
}

}  // namespace

Result<CachedPackage> fetch_file(const Candidate& c, const stdfs::path& pkgs_dir);

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

Result<CachedPackage> fetch_file(const Candidate& c, const stdfs::path& pkgs_dir) {
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

    // The archive's own metadata (its hash was just checked): what the cache
    // entry is checked by, and what the channel's record must name.
    auto md = archive::read_package_metadata(c.file);
    if (!md) return Unexpected<Error>{md.error()};
    // The file must be the package the channel says it is (depends may differ:
    // repodata patches edit those).
    if (c.origin == Origin::channel && md->index.dist_name() != rec.dist_name())
        return fail(what + ": info/index.json says " + md->index.dist_name() + " but the channel's repodata.json says " +
                    rec.dist_name());
    auto pkgs = fs::Dir::open(pkgs_dir, fs::Create::yes);
    if (!pkgs) return rewrap(pkgs.error(), {}, pkgs_dir.string() + ": cannot create the package cache: ");
    // A hardlinked file edited in some prefix changes the entry too; a
    // planted one lies: either way it is replaced by a fresh extraction.
    if (pkgs->kind(out.sha256) != fs::Kind::missing && !reusable(*pkgs, out.sha256, *md, what)) {
        std::string stale = ".stale-" + out.sha256 + "-" + std::to_string(::getpid()) + "-" + fs::random_hex(8);
        if (pkgs->rename(out.sha256, stale)) stdfs::remove_all(pkgs_dir / stale, ec);
    }

    if (pkgs->kind(out.sha256) == fs::Kind::missing) {
        std::string staging_name = ".staging-" + out.sha256 + "-" + std::to_string(::getpid()) + "-" + fs::random_hex(8);
        stdfs::path staging = pkgs_dir / staging_name;
        StagingDir guard{staging};  // whatever fails below, even by an exception, leaves no staging dir
        auto ex = archive::extract_package(c.file, staging);
        if (!ex) return Unexpected<Error>{ex.error()};
        auto staged = pkgs->sub(staging_name);
        if (!staged) return Unexpected<Error>{staged.error()};
        auto paths = read_paths(staging, what);
        if (!paths) return Unexpected<Error>{paths.error()};
        if (auto ok = verify_tree(*staged, *paths, what, Trust::fresh_extraction); !ok) return Unexpected<Error>{ok.error()};
        // Another process may have put the same package there meanwhile: fine
        // (the guard removes ours).
        if (pkgs->rename(staging_name, out.sha256)) guard.path.clear();
        if (pkgs->kind(out.sha256) != fs::Kind::dir)
            return fail_runtime({}, out.dir.string() + ": cannot move the extracted package into the cache");
    }
    if (md->paths) {
        out.paths = std::move(*md->paths);
        return out;
    }
    auto paths = read_paths(out.dir, what);
    if (!paths) return Unexpected<Error>{paths.error()};
    out.paths = std::move(*paths);
    return out;
}

Result<CachedPackage> fetch(const Candidate& c, const stdfs::path& pkgs_dir, Network net) {
    if (c.download_url.empty()) return fetch_file(c, pkgs_dir);
    if (auto ok = check_candidate(c); !ok) return Unexpected<Error>{ok.error()};
    auto file = download_package(c, pkgs_dir, net);
    if (!file) return Unexpected<Error>{file.error()};
    Candidate local = c;
    local.file = *file;
    return fetch_file(local, pkgs_dir);
}

}  // namespace sf::env::detail
