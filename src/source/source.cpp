#include "source/source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "core/rewrap.hpp"
#include "net/http.hpp"
#include "net/url.hpp"
#include "process/git.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::source {

namespace stdfs = std::filesystem;

namespace {

// A source archive is bounded too, well above the largest a feedstock
// fetches (CUDA redistributables reach a few GB).
constexpr std::uint64_t kMaxSource = std::uint64_t{16} << 30;

std::string env_get(const process::Env& env, const std::string& key) {
    auto it = env.find(key);
    return it == env.end() ? std::string() : it->second;
}

bool is_remote(const std::string& url) {
    return str::starts_with(url, "http://") || str::starts_with(url, "https://") || str::starts_with(url, "ftp://");
}

std::string percent_decode(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// The local file a non-remote url names: file:///abs, file://localhost/abs,
// an absolute path, or a path relative to the recipe dir.
Result<stdfs::path> local_file(const std::string& url, const stdfs::path& recipe_dir) {
    std::string p = url;
    if (str::starts_with(p, "file://")) {
        p = p.substr(7);
        if (str::starts_with(p, "localhost/")) p = p.substr(9);
        if (p.empty() || p.front() != '/')
            return fail("unsupported file url '" + url + "'", "write file:///absolute/path");
        p = percent_decode(p);
    }
    stdfs::path path = p;
    if (path.is_relative()) path = recipe_dir / path;
    return path;
}

std::string url_basename(const std::string& url) {
    std::string u = url.substr(0, url.find_first_of("?#"));
    while (!u.empty() && u.back() == '/') u.pop_back();
    auto slash = u.rfind('/');
    std::string base = percent_decode(slash == std::string::npos ? u : u.substr(slash + 1));
    return base.empty() ? std::string("source") : base;
}

Result<void> verify(const Result<hash::FileDigests>& d, const types::Source& spec) {
    if (!d) return unexpected(d.error());
    if (!spec.sha256.empty() && str::lower(spec.sha256) != d->sha256)
        return fail("sha256 mismatch for " + spec.url + ": expected " + str::lower(spec.sha256) + ", got " + d->sha256,
                    "the file changed or the recipe's sha256 is wrong; update sha256 only if you trust the new file");
    if (!spec.md5.empty() && str::lower(spec.md5) != d->md5)
        return fail("md5 mismatch for " + spec.url + ": expected " + str::lower(spec.md5) + ", got " + d->md5,
                    "the file changed or the recipe's md5 is wrong");
    return {};
}

// The entry `name` of a cache slot, read without following a symlink.
Result<void> verify_in(const fs::Dir& slot, const std::string& name, const types::Source& spec) {
    auto fd = slot.open_file(name);
    if (!fd) return unexpected(fd.error());
    auto d = hash::fd_digests(*fd, slot.path() / name);
    ::close(*fd);
    return verify(d, spec);
}

// <cache>/<sha256> as a directory handle. The cache root is the user's (a
// symlink naming it is theirs); below it nothing is followed: a symlink at
// the slot is removed, never read or written through, and a real one made.
Result<fs::Dir> cache_slot(const fs::Dir& root, const std::string& sha) {
    if (root.kind(sha) == fs::Kind::symlink)
        if (auto ok = root.remove(sha); !ok) return unexpected(ok.error());
    return root.sub(sha, fs::Create::yes);
}

// Whether the slot holds the source, verified on every use. Only a regular
// file counts: anything else there (a symlink above all) and a file whose
// digest is wrong are removed, and the source is fetched again.
bool cached(const fs::Dir& slot, const std::string& name, const types::Source& spec) {
    fs::Kind kind = slot.kind(name);
    if (kind == fs::Kind::missing) return false;
    if (kind == fs::Kind::file && verify_in(slot, name, spec)) return true;
    (void)slot.remove(name);
    return false;
}

// `url` into `dst` through net/ (libcurl: redirects, retries on timeouts
// and 5xx, a size limit). The reason names no credential (net::mask).
Result<void> fetch_remote(const std::string& url, const stdfs::path& dst) {
    if (str::starts_with(url, "ftp://"))
        return fail("ftp is not spoken [source-no-ftp]; give an https mirror in the url list");
    const int fd = ::open(dst.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return fail_runtime({}, "cannot write " + dst.string() + ": " + std::strerror(errno));
    auto resp = net::get_to_fd({url, {}, kMaxSource}, fd);
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!resp) return fail(resp.error().message);  // the url is named by fetch_to
    if (resp->status != 200) return fail(net::status_text(resp->status));
    if (!synced) return fail_runtime({}, "cannot write " + dst.string() + " to disk");
    return {};
}

// Copies or downloads `url` to `dst` (a temp name in the cache). An error
// says why this url gave nothing (fetch_to names the url).
Result<void> fetch_one(const std::string& url, const SourceContext& ctx, const stdfs::path& dst) {
    if (is_remote(url)) {
        if (ctx.offline) return fail("not in the source cache, and offline: nothing is downloaded");
        if (ctx.on_line) ctx.on_line("downloading " + net::mask(url));
        return fetch_remote(url, dst);
    }
    auto src = local_file(url, ctx.recipe_dir);
    if (!src) return unexpected(src.error());
    std::error_code ec;
    if (!stdfs::is_regular_file(*src, ec)) return fail("no such file " + src->string());
    if (auto r = fs::copy_file(*src, dst); !r) return rewrap(r.error(), "cannot copy " + src->string() + ": ");
    return {};
}

// Each url of the list in order, as conda-build's download_to_cache. When
// none gives the file: one error at the source's recipe line, naming every
// url tried (with why it failed) and the cache path where the file can be
// put by hand.
Result<void> fetch_to(const types::Source& spec, const SourceContext& ctx, const stdfs::path& dst,
                      const stdfs::path& cached) {
    std::vector<std::string> urls = {spec.url};
    urls.insert(urls.end(), spec.mirrors.begin(), spec.mirrors.end());
    std::vector<std::string> tried;
    for (const auto& url : urls) {
        auto ok = fetch_one(url, ctx, dst);  // the next one truncates what this one left
        if (ok) return {};
        tried.push_back(net::mask(url) + " (" + ok.error().message + ")");
    }
    return fail(spec.where, "cannot fetch " + cached.filename().string() + ": tried " + str::join(tried, ", "),
                "put the file (sha256 " + str::lower(spec.sha256) + ") at " + cached.string() +
                    " and build again: --source-cache DIR or $SPLITFORGE_CACHE names DIR/src/<sha256>/<file>");
}

Result<void> copy_link(const stdfs::path& from, const stdfs::path& to) {
    std::error_code ec;
    auto target = stdfs::read_symlink(from, ec);
    if (!ec) stdfs::create_symlink(target, to, ec);
    if (ec) return fail_runtime(SourceLoc{from.string()}, "cannot copy symlink: " + ec.message());
    return {};
}

Result<void> copy_tree(const stdfs::path& from, const stdfs::path& to) {
    std::error_code ec;
    stdfs::create_directories(to, ec);
    for (const auto& child : stdfs::directory_iterator(from, ec)) {
        stdfs::path target = to / child.path().filename();
        if (stdfs::exists(stdfs::symlink_status(target)))
            return fail(SourceLoc{target.string()}, "source path would overwrite a file an earlier source created",
                        "give this source its own `folder:`");
        // A FIFO, socket or device is refused before anything opens it: an
        // open() may wait forever (a FIFO) or act (some devices).
        struct stat st{};
        if (::lstat(child.path().c_str(), &st) != 0)
            return fail(SourceLoc{child.path().string()}, std::string("cannot read source: ") + std::strerror(errno));
        Result<void> r = S_ISDIR(st.st_mode) ? fs::copy_tree(child.path(), target)
                         : S_ISLNK(st.st_mode) ? copy_link(child.path(), target)
                         : S_ISREG(st.st_mode) ? fs::copy_file(child.path(), target, fs::Overwrite::no)
                                               : fail(SourceLoc{child.path().string()},
                                                      fs::file_kind(st.st_mode) + ", not a regular file",
                                                      "remove it from the tree");
        if (!r) return rewrap(r.error(), "cannot copy source: ");
    }
    if (ec) return fail(SourceLoc{from.string()}, "cannot read source directory: " + ec.message());
    return {};
}

Result<process::Outcome> git(process::GitCall call, const stdfs::path& cwd, const SourceContext& ctx) {
    call.cwd = cwd;
    call.env = ctx.env;
    return process::git(call);
}

std::string last_line(const std::string& s) {
    auto lines = str::split_lines(s);
    while (!lines.empty() && str::trim(lines.back()).empty()) lines.pop_back();
    return lines.empty() ? std::string("no output") : std::string(str::trim(lines.back()));
}

Result<void> fetch_git(const types::Source& spec, const SourceContext& ctx, const stdfs::path& dest) {
    // Render refuses these at their recipe line; a Source made elsewhere meets them here.
    if (auto ok = types::check_git_url("git_url", spec.git_url); !ok) return rewrap(ok.error(), spec.where);
    if (auto ok = types::check_git_rev("git_rev", spec.git_rev); !ok) return rewrap(ok.error(), spec.where);
    std::error_code ec;
    stdfs::create_directories(dest, ec);
    fs::TempDir tmp(".sf-git", dest);
    stdfs::path repo = tmp.path() / "repo";
    std::string url = spec.git_url;
    // A relative local repository is relative to the recipe.
    if (!is_remote(url) && url.find("://") == std::string::npos && url.find('@') == std::string::npos &&
        stdfs::path(url).is_relative())
        url = (ctx.recipe_dir / url).string();
    if (ctx.offline && (is_remote(url) || url.find('@') != std::string::npos))
        return fail(spec.where, "git_url " + spec.git_url + ": offline, so it is not cloned",
                    "build once online, or point git_url at a local clone");
    if (ctx.on_line) ctx.on_line("cloning " + spec.git_url + (spec.git_rev.empty() ? "" : " at " + spec.git_rev));
    auto clone = git({{"clone", "--quiet"}, {url, repo.string()}}, tmp.path(), ctx);
    if (!clone) return unexpected(clone.error());
    if (clone->exit_code != 0)
        return fail("git clone of " + spec.git_url + " failed: " + last_line(clone->err), "check git_url");
    if (!spec.git_rev.empty()) {
        auto co = git({{"checkout", "--quiet"}, {spec.git_rev}, process::Operands::before_dash_dash}, repo, ctx);
        if (!co) return unexpected(co.error());
        if (co->exit_code != 0)
            return fail("git checkout of '" + spec.git_rev + "' in " + spec.git_url + " failed: " + last_line(co->err),
                        "check git_rev (a branch, tag or commit of that repository)");
    }
    if (stdfs::exists(repo / ".gitmodules")) {
        auto sub = git({{"submodule", "update", "--init", "--recursive", "--quiet"}}, repo, ctx);
        if (!sub) return unexpected(sub.error());
        if (sub->exit_code != 0)
            return fail("git submodule update in " + spec.git_url + " failed: " + last_line(sub->err));
    }
    for (const auto& child : stdfs::directory_iterator(repo)) {
        stdfs::path target = dest / child.path().filename();
        if (stdfs::exists(stdfs::symlink_status(target)))
            return fail(SourceLoc{target.string()}, "git source would overwrite a file an earlier source created",
                        "give this source its own `folder:`");
        stdfs::rename(child.path(), target, ec);
        if (ec) return fail_runtime(SourceLoc{target.string()}, "cannot move into place: " + ec.message());
    }
    return {};
}

}  // namespace

stdfs::path default_source_cache(const process::Env& env) {
    std::string root = env_get(env, "SPLITFORGE_CACHE");
    if (!root.empty()) return stdfs::path(root) / "src";
    std::string home = env_get(env, "HOME");
    if (!home.empty()) return stdfs::path(home) / ".cache" / "splitforge" / "src";
    return stdfs::temp_directory_path() / "splitforge-cache" / "src";
}

Result<Download> download(const types::Source& spec, const SourceContext& ctx) {
    if (spec.url.empty()) return fail("source has no url");
    std::string name = spec.fn.empty() ? url_basename(spec.url) : spec.fn;
    if (name.find('/') != std::string::npos || name == "." || name == "..")
        return fail("invalid source file name '" + name + "'", "set `fn:` to a plain file name");

    if (spec.sha256.empty()) {
        if (is_remote(spec.url))
            return fail("source url " + spec.url + " has no sha256",
                        "add `sha256:` to the source (sha256sum of the file you trust)");
        // A local file without a checksum is used where it is.
        auto src = local_file(spec.url, ctx.recipe_dir);
        if (!src) return unexpected(src.error());
        std::error_code ec;
        if (!stdfs::is_regular_file(*src, ec))
            return fail("source url " + spec.url + " does not exist", "looked for " + src->string());
        if (auto ok = verify(hash::file_digests(*src), spec); !ok) return Unexpected<Error>{ok.error()};
        return Download{*src, CacheUse::none};
    }
    const std::string sha = str::lower(spec.sha256);
    if (sha.size() != 64 || sha.find_first_not_of("0123456789abcdef") != std::string::npos)
        return fail("invalid sha256 '" + spec.sha256 + "' for " + spec.url, "expected 64 hex digits");

    stdfs::path cache = ctx.cache_dir.empty() ? default_source_cache(ctx.env) : ctx.cache_dir;
    auto root = fs::Dir::open(cache, fs::Create::yes);
    if (!root) return rewrap(root.error(), "cannot create download cache: ");
    fs::FileLock lock(cache / (sha + ".lock"));
    auto slot = cache_slot(*root, sha);
    if (!slot) return rewrap(slot.error(), "download cache: ");
    const stdfs::path file = slot->path() / name;
    if (cached(*slot, name, spec)) return Download{file, CacheUse::hit};

    // A fresh name made here (O_EXCL, never through a symlink) is what the
    // copy or curl writes, whatever was planted in the slot; it is renamed
    // over the entry once verified.
    slot->sweep_stale_temps();
    const std::string part = fs::temp_name(name);
    auto fd = slot->create_file(part, 0644);
    if (!fd) return unexpected(fd.error());
    ::close(*fd);
    auto stored = [&]() -> Result<void> {
        if (auto ok = fetch_to(spec, ctx, slot->path() / part, file); !ok) return ok;
        if (auto ok = verify_in(*slot, part, spec); !ok) return ok;
        return slot->rename(part, name);
    }();
    if (!stored) {
        (void)slot->remove(part);
        return unexpected(stored.error());
    }
    return Download{file, CacheUse::miss};
}

Result<FetchResult> fetch_source(const types::Source& spec, const SourceContext& ctx) {
    int kinds = !spec.url.empty() + !spec.path.empty() + !spec.git_url.empty();
    if (kinds != 1)
        return fail(kinds == 0 ? "source has none of url, path or git_url" : "source has more than one of url, path, git_url",
                    "give exactly one");
    if (!spec.folder.empty()) {
        auto safe = stdfs::path(spec.folder).lexically_normal();
        if (safe.is_absolute() || safe.string().rfind("..", 0) == 0)
            return fail("source folder '" + spec.folder + "' must stay inside the work dir", "use a relative folder");
    }
    FetchResult out;
    // `folder:` is walked below the work dir without following a symlink: an
    // earlier source (a `path:` copy, an archive) may have put one there.
    auto work = fs::Dir::open(ctx.work_dir, fs::Create::yes);
    if (!work) return Unexpected<Error>{work.error()};
    auto dest = work->sub(spec.folder, fs::Create::yes);
    if (!dest) {
        Error e = dest.error();  // keeps its kind: a mkdir that failed is the job's
        e.message = "source folder '" + spec.folder + "': " + e.message;
        if (e.hint.empty()) e.hint = "give this source a folder no earlier source created";
        return Unexpected<Error>{std::move(e)};
    }
    out.dir = dest->path();
    std::error_code ec;

    if (!spec.url.empty()) {
        auto dl = download(spec, ctx);
        if (!dl) return Unexpected<Error>{dl.error()};
        out.cache = dl->cache;
        std::string name = dl->file.filename().string();
        if (is_archive_name(name)) {
            if (ctx.on_line) ctx.on_line("extracting " + name);
            if (auto ok = extract_archive(dl->file, out.dir, StripTop::yes); !ok) return Unexpected<Error>{ok.error()};
        } else {
            std::string dst_name = spec.fn.empty() ? url_basename(spec.url) : spec.fn;
            if (auto r = fs::copy_file(dl->file, out.dir / dst_name); !r)
                return rewrap(r.error(), "cannot copy source: ");
        }
    } else if (!spec.path.empty()) {
        stdfs::path src = stdfs::path(spec.path).is_absolute() ? stdfs::path(spec.path) : ctx.recipe_dir / spec.path;
        if (!stdfs::is_directory(src, ec))
            return fail("source path " + spec.path + " is not a directory", "looked for " + src.string());
        // Copying a directory into itself would never end.
        auto inside = stdfs::weakly_canonical(out.dir).lexically_relative(stdfs::weakly_canonical(src));
        if (!inside.empty() && inside.native().rfind("..", 0) != 0)
            return fail("source path " + spec.path + " contains the work dir " + out.dir.string(),
                        "put the work dir outside the source tree");
        if (ctx.on_line) ctx.on_line("copying " + spec.path);
        if (auto ok = copy_tree(src, out.dir); !ok) return Unexpected<Error>{ok.error()};
    } else {
        if (auto ok = fetch_git(spec, ctx, out.dir); !ok) return Unexpected<Error>{ok.error()};
    }
    if (auto ok = apply_patches(spec.patches, out.dir, ctx); !ok) return Unexpected<Error>{ok.error()};
    return out;
}

Result<std::vector<FetchResult>> fetch_sources(const std::vector<types::Source>& specs, const SourceContext& ctx) {
    std::vector<FetchResult> out;
    for (const auto& s : specs) {
        auto r = fetch_source(s, ctx);
        if (!r) return Unexpected<Error>{r.error()};
        out.push_back(*r);
    }
    return out;
}

}  // namespace sf::source
