#include "script/capture.hpp"

#include <fnmatch.h>

#include <cctype>
#include <system_error>

#include "core/rewrap.hpp"
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

Result<void> copy_files(const stdfs::path& from, const std::vector<std::string>& files, const stdfs::path& to) {
    std::error_code ec;
    stdfs::create_directories(to, ec);
    for (const auto& rel : files) {
        stdfs::path src = from / rel, dst = to / rel;
        stdfs::create_directories(dst.parent_path(), ec);
        auto st = stdfs::symlink_status(src, ec);
        if (ec) return fail_runtime(SourceLoc{src.string()}, "cannot read: " + ec.message());
        stdfs::remove(dst, ec);
        if (stdfs::is_symlink(st)) {
            auto target = stdfs::read_symlink(src, ec);
            if (!ec) stdfs::create_symlink(target, dst, ec);
        } else {
            if (auto r = fs::copy_file(src, dst); !r)
                return rewrap(r.error(), "cannot copy into the package: ");
        }
        if (ec) return fail_runtime(SourceLoc{src.string()}, "cannot copy into the package: " + ec.message());
    }
    return {};
}

}  // namespace sf::script
