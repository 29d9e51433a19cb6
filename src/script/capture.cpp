#include "script/capture.hpp"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>
#include <system_error>

#include "core/rewrap.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::script {

namespace stdfs = std::filesystem;

std::set<std::string> snapshot(const stdfs::path& prefix) {
    std::set<std::string> out;
    std::error_code ec;
    if (!stdfs::exists(prefix, ec)) return out;
    for (auto it = stdfs::recursive_directory_iterator(prefix, ec); !ec && it != stdfs::recursive_directory_iterator();
         it.increment(ec)) {
        auto st = it->symlink_status(ec);
        if (stdfs::is_directory(st)) continue;
        out.insert(it->path().lexically_relative(prefix).generic_string());
    }
    return out;
}

bool conda_build_drops(const std::string& rel) {
    // conda_build/utils.py filter_files: r"(.*[\\/])?\.git[\\/].*", r"(.*[\\/])?\.git$",
    // r"(.*)?\.DS_Store.*", r".*\.la$", r"conda-meta.*", r".*\.conda_trash(?:_\d+)*$",
    // each matched from the start of the path.
    const std::string p = "/" + rel;
    if (p.find("/.git/") != std::string::npos || str::ends_with(p, "/.git")) return true;
    if (rel.find(".DS_Store") != std::string::npos) return true;
    if (str::ends_with(rel, ".la")) return true;
    if (str::starts_with(rel, "conda-meta")) return true;
    const auto trash = rel.rfind(".conda_trash");
    if (trash == std::string::npos) return false;
    std::string tail = rel.substr(trash + 12);  // (?:_\d+)*$
    while (!tail.empty()) {
        if (tail[0] != '_' || tail.size() < 2 || !std::isdigit(static_cast<unsigned char>(tail[1]))) return false;
        size_t i = 1;
        while (i < tail.size() && std::isdigit(static_cast<unsigned char>(tail[i]))) ++i;
        tail = tail.substr(i);
    }
    return true;
}

std::vector<std::string> new_files(const stdfs::path& prefix, const std::set<std::string>& before) {
    std::vector<std::string> out;
    for (const auto& f : snapshot(prefix))
        if (!before.count(f)) out.push_back(f);
    return out;
}

std::vector<std::string> package_files(std::vector<std::string> files) {
    std::erase_if(files, conda_build_drops);
    return files;
}

bool matches_any(const std::string& rel, const std::vector<std::string>& patterns) {
    for (std::string p : patterns) {
        p = std::string(str::trim(p));
        while (str::starts_with(p, "./")) p = p.substr(2);
        while (!p.empty() && p.back() == '/') p.pop_back();
        if (p.empty()) continue;
        if (rel == p || str::starts_with(rel, p + "/")) return true;
        if (p.find_first_of("*?[") == std::string::npos) continue;
        // `**` crosses directories: without FNM_PATHNAME every `*` does, so
        // use FNM_PATHNAME only for patterns without `**`.
        int flags = p.find("**") == std::string::npos ? FNM_PATHNAME : 0;
        if (::fnmatch(p.c_str(), rel.c_str(), flags) == 0) return true;
        // A glob naming a directory selects what is below it.
        for (auto pos = rel.find('/'); pos != std::string::npos; pos = rel.find('/', pos + 1))
            if (::fnmatch(p.c_str(), rel.substr(0, pos).c_str(), flags) == 0) return true;
    }
    return false;
}

std::vector<std::string> select_files(const std::vector<std::string>& files, const std::vector<std::string>& patterns) {
    std::vector<std::string> out;
    for (const auto& f : files)
        if (matches_any(f, patterns)) out.push_back(f);
    return out;
}

namespace {

// The first component of `rel` (below `root`) that is a symlink resolved one
// step: "lib64/x" with lib64 -> lib gives "lib/x". Empty when none is, or
// when the link is absolute or leads above `root` (then it is refused).
std::optional<std::string> resolve_one_link(const fs::Dir& root, const std::string& rel) {
    std::string done;
    for (const auto& part : str::split(rel, '/')) {
        if (part.empty() || part == ".") continue;
        const std::string here = done.empty() ? part : done + "/" + part;
        struct stat st{};
        if (::fstatat(root.fd(), here.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(st.st_mode)) {
            done = here;
            continue;
        }
        char buf[4096];
        ssize_t n = ::readlinkat(root.fd(), here.c_str(), buf, sizeof buf);
        if (n <= 0 || buf[0] == '/') return std::nullopt;
        std::string to = (stdfs::path(done) / std::string(buf, static_cast<std::size_t>(n))).lexically_normal().generic_string();
        if (to == ".." || str::starts_with(to, "../")) return std::nullopt;
        const std::string rest = rel.size() > here.size() ? rel.substr(here.size()) : "";
        return (to == "." ? "" : to) + rest;
    }
    return std::nullopt;
}

// The directory `rel` below `root`, made as needed. A symlinked directory on
// the way is followed only while it stays inside `root` (a venv's lib64 ->
// lib), at most 16 times; one leading out is refused, never followed.
Result<fs::Dir> parent_dir(const fs::Dir& root, std::string rel) {
    auto d = root.sub(rel, fs::Create::yes);
    for (int hops = 0; !d && hops < 16; ++hops) {
        auto inside = resolve_one_link(root, rel);
        if (!inside) return d;
        rel = *inside;
        d = root.sub(rel, fs::Create::yes);
    }
    return d;
}

}  // namespace

// Writes go through fs::Dir below `to`: the prefix an output restores staged
// files into holds what its envs installed, and a symlinked directory there
// (`lib -> /elsewhere`) must not carry a write, or a removal, out of it.
Result<void> copy_files(const stdfs::path& from, const std::vector<std::string>& files, const stdfs::path& to) {
    auto root = fs::Dir::open(to, fs::Create::yes);
    if (!root) return unexpected(root.error());
    std::string parent_rel = "\n";  // the directory `parent` holds (files come sorted: reused)
    fs::Dir parent;
    for (const auto& rel : files) {
        const stdfs::path r(rel), src = from / rel, dst = to / rel;
        const std::string name = r.filename().string(), up = r.parent_path().generic_string();
        if (up != parent_rel || !parent) {
            auto d = parent_dir(*root, up);
            if (!d) return rewrap(d.error(), "cannot copy " + rel + " into " + to.string() + ": ");
            parent = std::move(*d);
            parent_rel = up;
        }
        struct stat st{};
        if (::lstat(src.c_str(), &st) != 0) return fail_runtime(SourceLoc{src.string()}, std::string("cannot read: ") + std::strerror(errno));
        if (parent.kind(name) == fs::Kind::dir)
            return fail_runtime(SourceLoc{dst.string()}, "is a directory; " + rel + " cannot replace it",
                        "the output's environment installs a directory where the staged files have a file");
        if (S_ISLNK(st.st_mode)) {
            std::error_code ec;
            auto target = stdfs::read_symlink(src, ec);
            if (ec) return fail_runtime(SourceLoc{src.string()}, "cannot read symlink: " + ec.message());
            if (auto ok = parent.remove(name); !ok) return ok;
            if (auto ok = parent.symlink(target.string(), name); !ok) return ok;
        } else if (S_ISREG(st.st_mode)) {
            if (auto ok = fs::copy_file_into(parent, name, src); !ok) return rewrap(ok.error(), "cannot copy into the package: ");
        } else {
            return fail_runtime(SourceLoc{src.string()}, fs::file_kind(st.st_mode) + ", not a regular file or symlink",
                        "remove it in the build script");
        }
    }
    return {};
}

}  // namespace sf::script
