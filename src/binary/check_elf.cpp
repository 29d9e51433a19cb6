#include "binary/check_elf.hpp"

#include <algorithm>

#include "package/elf.hpp"
#include "util/strings.hpp"

namespace sf::binary {

namespace stdfs = std::filesystem;

namespace {

// The directory an RPATH entry names, relative to the tree's root; empty
// with `why` set when it names none inside.
std::string rpath_dir(const ElfTree& t, const std::string& member, const std::string& entry, std::string& why) {
    std::string rest;
    if (str::starts_with(entry, "$ORIGIN")) rest = entry.substr(7);
    else if (str::starts_with(entry, "${ORIGIN}")) rest = entry.substr(9);
    else if (!entry.empty() && entry[0] == '/') {
        if (!t.prefix.empty() && (entry == t.prefix || str::starts_with(entry, t.prefix + "/"))) {
            std::string rel = stdfs::path(entry.substr(t.prefix.size())).lexically_normal().relative_path().string();
            return rel.empty() ? "." : rel;
        }
        why = "absolute RPATH entry '" + entry + "' (a build or host path; use $ORIGIN)";
        return {};
    } else {
        why = "RPATH entry '" + entry + "' is relative to the working directory (use $ORIGIN)";
        return {};
    }
    if (!rest.empty() && rest[0] != '/') {
        why = "RPATH entry '" + entry + "' is not $ORIGIN or $ORIGIN/...";
        return {};
    }
    stdfs::path dir = (stdfs::path(member).parent_path() / stdfs::path(rest).relative_path()).lexically_normal();
    std::string s = dir.string();
    if (s.empty()) return ".";
    if (s == ".." || str::starts_with(s, "../")) {
        why = "RPATH entry '" + entry + "' points outside the artifact";
        return {};
    }
    if (s.back() == '/') s.pop_back();
    return s;
}

std::string join_rel(const std::string& dir, const std::string& name) {
    return dir == "." ? name : dir + "/" + name;
}

}  // namespace

Result<std::vector<Finding>> check_links(const ElfTree& t) {
    std::vector<Finding> out;
    for (const auto& member : t.files) {
        auto elf = package::read_elf(t.root / member);
        if (!elf) return fail(t.artifact + ": " + member + ": " + elf.error().message);
        if (!elf->is_elf || !elf->is_dynamic) continue;
        std::vector<std::string> dirs;
        for (const auto& entry : str::split(elf->rpath, ':')) {
            if (entry.empty()) continue;
            std::string why;
            std::string d = rpath_dir(t, member, entry, why);
            if (d.empty()) out.push_back({t.artifact, member, why});
            else dirs.push_back(d);
        }
        for (const auto& lib : elf->needed) {
            if (lib.find('/') != std::string::npos) {
                out.push_back({t.artifact, member, "NEEDED '" + lib + "' is a path, not a library name"});
                continue;
            }
            bool found = std::any_of(dirs.begin(), dirs.end(),
                                     [&](const std::string& d) { return t.available.count(join_rel(d, lib)) > 0; });
            if (found || (t.allowed && t.allowed(lib))) continue;
            std::string where = elf->rpath.empty() ? "no RPATH" : "RPATH '" + elf->rpath + "'";
            out.push_back({t.artifact, member,
                           "NEEDED " + lib + " not found (" + where + ", LD_LIBRARY_PATH unset; not in the artifact" +
                               t.not_found_hint + " nor on the platform allow-list)"});
        }
    }
    return out;
}

std::vector<std::string> list_tree(const stdfs::path& root) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(root, ec); !ec && it != stdfs::recursive_directory_iterator();
         it.increment(ec)) {
        auto st = it->symlink_status(ec);
        if (stdfs::is_regular_file(st) || stdfs::is_symlink(st))
            out.push_back(it->path().lexically_relative(root).string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool soname_matches(std::string_view soname, std::string_view stem) {
    if (!str::starts_with(soname, stem)) return false;
    std::string_view rest = soname.substr(stem.size());
    if (rest.empty()) return true;
    if (rest[0] != '.') return false;
    return std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
}

bool is_glibc_library(std::string_view soname) {
    static const char* const stems[] = {"libc.so",      "libm.so",     "libpthread.so", "libdl.so",
                                        "librt.so",     "libutil.so",  "libresolv.so",  "libanl.so",
                                        "libcrypt.so",  "libnsl.so",   "libmvec.so",    "libBrokenLocale.so",
                                        "libnss_files.so", "libnss_dns.so", "libthread_db.so"};
    for (const char* s : stems)
        if (soname_matches(soname, s)) return true;
    return str::starts_with(soname, "ld-linux") || soname_matches(soname, "ld64.so");
}

}  // namespace sf::binary
