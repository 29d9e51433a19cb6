// Remote packages into the package cache: <pkgs_dir>/archives/<sha256>/<fn>.
#include <unistd.h>

#include "core/rewrap.hpp"
#include "env/install_detail.hpp"
#include "net/http.hpp"
#include "net/url.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

namespace sf::env::detail {
namespace {

// A package no channel's record sizes: still bounded.
constexpr std::uint64_t kMaxPackage = std::uint64_t{8} << 30;

// Does the file `fn` in `dir` hash to `sha256` (read without following a symlink)?
bool intact(const fs::Dir& dir, const std::string& fn, const std::string& sha256) {
    if (dir.kind(fn) != fs::Kind::file) return false;
    auto fd = dir.open_file(fn);
    if (!fd) return false;
    auto d = hash::fd_digests(*fd, dir.path() / fn);
    ::close(*fd);
    return d && d->sha256 == sha256;
}

// The body into the temp file `tmp` in `dir`; checked, then renamed to `fn`.
Result<void> download_into(const fs::Dir& dir, const std::string& tmp, const Candidate& c) {
    const auto& rec = c.record;
    const std::string where = net::mask(c.download_url);
    const std::string what = "package " + rec.fn + " from " + where;
    auto fd = dir.create_file(tmp, 0644);
    if (!fd) return Unexpected<Error>{fd.error()};
    auto resp = net::get_to_fd({c.download_url, {}, rec.size ? *rec.size : kMaxPackage}, *fd);
    if (::fsync(*fd) != 0 && resp) resp = fail_runtime(SourceLoc{where}, "cannot write the download to disk");
    ::close(*fd);
    if (!resp) return rewrap(resp.error(), {}, what + ": ");
    if (resp->status != 200) return fail(what + ": " + net::status_text(resp->status), "the channel's index lists a file the server does not serve");
    auto in = dir.open_file(tmp);
    if (!in) return Unexpected<Error>{in.error()};
    auto d = hash::fd_digests(*in, dir.path() / tmp);
    ::close(*in);
    if (!d) return Unexpected<Error>{d.error()};
    if (rec.size && *rec.size != d->size)
        return fail(what + ": size mismatch: repodata says " + std::to_string(*rec.size) + " bytes, the server sent " +
                        std::to_string(d->size),
                    "the channel's index is stale or the server's file is corrupt; nothing was installed");
    if (d->sha256 != rec.sha256)
        return fail(what + ": sha256 mismatch: repodata says " + rec.sha256 + ", the download has " + d->sha256,
                    "the channel's index is stale or the server's file is corrupt; nothing was installed");
    return dir.rename(tmp, rec.fn);
}

}  // namespace

Result<stdfs::path> download_package(const Candidate& c, const stdfs::path& pkgs_dir, Network net) {
    const auto& rec = c.record;
    if (rec.sha256.empty())
        return fail("package " + rec.fn + " from " + net::mask(c.download_url) + ": the channel's record has no sha256",
                    "nothing could check the download; ask the channel to publish sha256 in its repodata");
    auto pkgs = fs::Dir::open(pkgs_dir, fs::Create::yes);
    if (!pkgs) return rewrap(pkgs.error(), {}, pkgs_dir.string() + ": cannot create the package cache: ");
    auto archives = pkgs->sub("archives", fs::Create::yes);
    if (!archives) return Unexpected<Error>{archives.error()};
    fs::FileLock lock(archives->path() / (rec.sha256 + ".lock"));
    auto entry = archives->sub(rec.sha256, fs::Create::yes);
    if (!entry) return Unexpected<Error>{entry.error()};
    entry->sweep_stale_temps();
    const stdfs::path file = entry->path() / rec.fn;
    if (intact(*entry, rec.fn, rec.sha256)) return file;
    if (net == Network::offline) {
        std::error_code ec;
        stdfs::remove(entry->path(), ec);  // only when empty
        return fail("package " + rec.fn + " from " + net::mask(c.download_url) + ": offline, and not in the package cache",
                    "run the same command once without --offline to fill the cache");
    }
    const std::string tmp = fs::temp_name(rec.fn);
    auto ok = download_into(*entry, tmp, c);
    if (ok) return file;
    // Nothing of a failed download stays: the temp file, and the entry when empty.
    (void)entry->remove(tmp);
    std::error_code ec;
    stdfs::remove(entry->path(), ec);
    return Unexpected<Error>{ok.error()};
}

}  // namespace sf::env::detail
