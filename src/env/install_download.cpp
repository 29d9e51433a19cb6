// Remote packages into the package cache: <pkgs_dir>/archives/<sha256>/<fn>.
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>

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
// Packages in flight at once: conda's default fetch_threads is 5, rattler's 50.
constexpr int kParallelDownloads = 8;

// Does the file `fn` in `dir` hash to `sha256` (read without following a symlink)?
bool intact(const fs::Dir& dir, const std::string& fn, const std::string& sha256) {
    if (dir.kind(fn) != fs::Kind::file) return false;
    auto fd = dir.open_file(fn);
    if (!fd) return false;
    auto d = hash::fd_digests(*fd, dir.path() / fn);
    ::close(*fd);
    return d && d->sha256 == sha256;
}

// A finished download in the temp file `tmp` of `dir`: its answer judged,
// its bytes checked against the record, then renamed to the record's fn.
Result<void> check_download(const fs::Dir& dir, const std::string& tmp, const Candidate& c, Result<net::Response> resp) {
    const auto& rec = c.record;
    const std::string what = "package " + rec.fn + " from " + net::mask(c.download_url);
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

Result<net::Response> synced(int fd, const std::string& where, Result<net::Response> resp) {
    if (::fsync(fd) != 0 && resp) resp = fail_runtime(SourceLoc{where}, "cannot write the download to disk");
    ::close(fd);
    return resp;
}

// The body into the temp file `tmp` in `dir`; checked, then renamed to `fn`.
Result<void> download_into(const fs::Dir& dir, const std::string& tmp, const Candidate& c) {
    const auto& rec = c.record;
    auto fd = dir.create_file(tmp, 0644);
    if (!fd) return Unexpected<Error>{fd.error()};
    auto resp = net::get_to_fd({c.download_url, {}, rec.size ? *rec.size : kMaxPackage}, *fd);
    return check_download(dir, tmp, c, synced(*fd, net::mask(c.download_url), std::move(resp)));
}

// Nothing of a failed download stays: the temp file, and the entry when empty.
void discard(const fs::Dir& entry, const std::string& tmp) {
    (void)entry.remove(tmp);
    std::error_code ec;
    stdfs::remove(entry.path(), ec);
}

// One archive get_all() fetches, held under its entry's lock meanwhile.
struct Pending {
    const Candidate* c;
    std::unique_ptr<fs::FileLock> lock;
    std::optional<fs::Dir> entry;
    std::string tmp;
    int fd = -1;
};

// The archives to fetch: each not already intact in the cache, its entry
// locked and its temp file open. Locks are taken in sha256 order, so two
// processes taking several never wait on each other in a cycle.
Result<std::vector<Pending>> prepare(std::vector<const Candidate*> cs, const fs::Dir& archives,
                                     const std::vector<stdfs::path>& conda_dirs, Network net) {
    std::sort(cs.begin(), cs.end(), [](auto* a, auto* b) { return a->record.sha256 < b->record.sha256; });
    std::vector<Pending> out;
    std::set<std::string> seen;  // one lock per entry: a second flock of it here would wait on the first
    for (const Candidate* c : cs) {
        if (!seen.insert(c->record.sha256).second) continue;
        Pending p{c, std::make_unique<fs::FileLock>(archives.path() / (c->record.sha256 + ".lock")), {}, {}, -1};
        auto entry = archives.sub(c->record.sha256, fs::Create::yes);
        if (!entry) return Unexpected<Error>{entry.error()};
        entry->sweep_stale_temps();
        if (intact(*entry, c->record.fn, c->record.sha256) || take_from_conda(conda_dirs, *c, *entry)) continue;
        if (net == Network::offline) continue;  // download_package says what is missing
        p.tmp = fs::temp_name(c->record.fn);
        auto fd = entry->create_file(p.tmp, 0644);
        if (!fd) return Unexpected<Error>{fd.error()};
        p.fd = *fd;
        p.entry = std::move(*entry);
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace

Result<void> download_packages(const std::vector<const Candidate*>& cs, const stdfs::path& pkgs_dir,
                               const std::vector<stdfs::path>& conda_dirs, Network net, const DownloadReport& report) {
    std::vector<const Candidate*> remote;
    for (const Candidate* c : cs)
        if (!c->download_url.empty() && !c->record.sha256.empty()) remote.push_back(c);
    if (remote.empty()) return {};
    auto pkgs = fs::Dir::open(pkgs_dir, fs::Create::yes);
    if (!pkgs) return rewrap(pkgs.error(), {}, pkgs_dir.string() + ": cannot create the package cache: ");
    auto archives = pkgs->sub("archives", fs::Create::yes);
    if (!archives) return Unexpected<Error>{archives.error()};
    auto pending = prepare(std::move(remote), *archives, conda_dirs, net);
    if (!pending) return Unexpected<Error>{pending.error()};
    std::vector<net::Transfer> transfers;
    DownloadProgress progress;
    for (const auto& p : *pending) {
        const auto& rec = p.c->record;
        transfers.push_back({{p.c->download_url, {}, rec.size ? *rec.size : kMaxPackage}, p.fd});
        progress.bytes_total += rec.size ? *rec.size : 0;
    }
    progress.files_total = transfers.size();
    if (transfers.empty()) return {};
    auto results = net::get_all(transfers, kParallelDownloads, [&](const net::Progress& np) {
        progress.files_done = np.done;
        progress.bytes_done = np.bytes;
        if (report) report(progress);
    });
    Result<void> first = {};
    for (std::size_t i = 0; i < pending->size(); ++i) {
        auto& p = (*pending)[i];
        auto ok = check_download(*p.entry, p.tmp, *p.c, synced(p.fd, net::mask(p.c->download_url), std::move(results[i])));
        if (ok) give_to_conda(conda_dirs, *p.c, p.entry->path() / p.c->record.fn);
        if (!ok) discard(*p.entry, p.tmp);
        if (!ok && first) first = Unexpected<Error>{ok.error()};
    }
    return first;
}

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
    discard(*entry, tmp);
    return Unexpected<Error>{ok.error()};
}

}  // namespace sf::env::detail
