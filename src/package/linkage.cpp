#include "package/linkage.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "package/elf.hpp"
#include "types/json_fields.hpp"
#include "types/match_spec.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::package {

namespace stdfs = std::filesystem;

namespace {

// What glibc's sysroot package (sysroot_linux-*) ships as shared libraries:
// conda-build finds these "in CDT/compiler package sysroot_linux-64".
const char* const kSysrootLibraries[] = {
    "libc.so.*",       "libm.so.*",        "libpthread.so.*",     "libdl.so.*",   "librt.so.*",
    "libutil.so.*",    "libresolv.so.*",   "libnsl.so.*",         "libcrypt.so.*", "libanl.so.*",
    "libmvec.so.*",    "libcidn.so.*",     "libBrokenLocale.so.*", "libnss_*.so.*", "libthread_db.so.*",
    "ld-linux*.so.*",  "ld64.so.*",        "libc_malloc_debug.so.*",
};

bool fnmatch_at(const std::string& s, size_t i, const std::string& p, size_t j) {
    while (j < p.size()) {
        char c = p[j];
        if (c == '*') {
            while (j < p.size() && p[j] == '*') ++j;
            if (j == p.size()) return true;
            for (size_t k = i; k <= s.size(); ++k)
                if (fnmatch_at(s, k, p, j)) return true;
            return false;
        }
        if (i >= s.size()) return false;
        if (c == '[') {
            size_t end = p.find(']', j + 2);
            if (end == std::string::npos) {  // a lone '[' is itself
                if (s[i] != '[') return false;
            } else {
                bool neg = p[j + 1] == '!', hit = false;
                for (size_t k = j + 1 + (neg ? 1 : 0); k < end; ++k) {
                    if (k + 2 < end && p[k + 1] == '-') {
                        hit = hit || (s[i] >= p[k] && s[i] <= p[k + 2]);
                        k += 2;
                    } else {
                        hit = hit || s[i] == p[k];
                    }
                }
                if (hit == neg) return false;
                j = end;
            }
        } else if (c != '?' && c != s[i]) {
            return false;
        }
        ++i;
        ++j;
    }
    return i == s.size();
}

std::string lower_slashed(std::string s) {
    for (auto& c : s) c = c == '\\' ? '/' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool any_match(const std::string& path, const std::vector<std::string>& patterns) {
    return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return caseless_fnmatch(path, p); });
}

// "$ORIGIN/../lib" of a file in "bin" -> "lib"; nullopt when it leaves the prefix.
std::optional<std::string> origin_dir(const std::string& entry, const std::string& file_dir) {
    std::string rest;
    if (str::starts_with(entry, "${ORIGIN}")) rest = entry.substr(9);
    else rest = entry.substr(7);
    std::string joined = (stdfs::path(file_dir.empty() ? "." : file_dir) / ("." + rest)).lexically_normal().generic_string();
    while (!joined.empty() && joined.back() == '/') joined.pop_back();
    if (joined == ".." || str::starts_with(joined, "../")) return std::nullopt;
    return joined.empty() ? std::string(".") : joined;
}

// One RPATH entry: a directory relative to the prefix, or an absolute one outside it.
struct SearchDir {
    std::string rel;       // set: inside the prefix
    stdfs::path absolute;  // set: outside it
};

std::vector<SearchDir> search_dirs(const ElfInfo& elf, const std::string& file, const LinkageOptions& o) {
    std::vector<SearchDir> out;
    const std::string file_dir = stdfs::path(file).parent_path().generic_string();
    const std::string roots[] = {o.prefix_string, o.host_prefix.string()};
    for (const auto& e : str::split(elf.rpath, ':')) {
        if (e.empty()) continue;
        if (str::starts_with(e, "$ORIGIN") || str::starts_with(e, "${ORIGIN}")) {
            if (auto d = origin_dir(e, file_dir)) out.push_back({*d, {}});
            continue;
        }
        if (e[0] != '/') continue;  // relative to the working directory: never where conda looks
        std::string norm = stdfs::path(e).lexically_normal().generic_string();
        while (norm.size() > 1 && norm.back() == '/') norm.pop_back();
        std::optional<std::string> rel;
        for (const auto& r : roots) {
            if (r.empty()) continue;
            if (norm == r) rel = ".";
            else if (str::starts_with(norm, r + "/")) rel = norm.substr(r.size() + 1);
        }
        if (rel) out.push_back({*rel, {}});
        else out.push_back({"", norm});
    }
    return out;
}

bool exists_no_follow(const stdfs::path& p) {
    std::error_code ec;
    return stdfs::symlink_status(p, ec).type() != stdfs::file_type::not_found && !ec;
}

std::string join_rel(const std::string& dir, const std::string& name) {
    return dir == "." || dir.empty() ? name : dir + "/" + name;
}

// Where a DT_NEEDED resolves, as conda-build's pyldd finds it.
struct Resolved {
    enum Kind { self, prefix, system, unresolved } kind = unresolved;
    std::string path;  // prefix-relative (self, prefix) or absolute (system)
};

Resolved resolve(const std::string& needed, const std::vector<SearchDir>& dirs, const stdfs::path& pkg_dir,
                 const LinkageOptions& o) {
    for (const auto& d : dirs) {
        if (!d.rel.empty()) {
            std::string rel = join_rel(d.rel, needed);
            if (exists_no_follow(pkg_dir / rel)) return {Resolved::self, rel};
            if (exists_no_follow(o.host_prefix / rel)) return {Resolved::prefix, rel};
        } else if (exists_no_follow(d.absolute / needed)) {
            return {Resolved::system, (d.absolute / needed).string()};
        }
    }
    for (const auto& d : o.system_lib_dirs)
        if (exists_no_follow(d / needed)) return {Resolved::system, (d / needed).string()};
    return {};
}

const char* nature_name(int n) {
    static const char* names[] = {"non-library", "interpreter (Python)", "run-exports library", "dso library",
                                  "plugin library (Python)", "interpreted library (Python)"};
    return names[n];
}
enum Nature { non_library, interpreter, run_exports_library, dso_library, plugin_library, interpreted_library };

// conda-build's library_nature(), from the record and the files on disk.
Nature nature_of(const PrefixPackage& p, const stdfs::path& prefix) {
    if (p.name == "python") return interpreter;
    if (p.has_run_exports) return run_exports_library;
    bool dso = false, non_python_dso = false, python_files = false;
    for (const auto& f : p.files) {
        if (f.find("site-packages") != std::string::npos) python_files = true;
        if (f.find(".so") == std::string::npos) continue;
        std::error_code ec;
        if (stdfs::symlink_status(prefix / f, ec).type() != stdfs::file_type::regular) continue;
        auto elf = read_elf(prefix / f);
        if (!elf || !elf->is_elf) continue;
        dso = true;
        if (f.find("site-packages") == std::string::npos) non_python_dso = true;
    }
    if (dso) return non_python_dso ? dso_library : plugin_library;
    return python_files ? interpreted_library : non_library;
}

class Checker {
public:
    Checker(const stdfs::path& dir, const LinkageOptions& o) : dir_(dir), o_(o) {
        for (const auto& d : o.run_depends) run_.insert(types::MatchSpec::name_of(d));
        for (const auto& p : o.packages)
            for (const auto& f : p.files) owners_[f].push_back(&p);
    }

    Result<LinkageReport> run();

private:
    const stdfs::path& dir_;
    const LinkageOptions& o_;
    std::set<std::string> run_;
    std::map<std::string, std::vector<const PrefixPackage*>> owners_;
    std::set<std::string> used_;  // run dependencies some file links
    LinkageReport report_;

    LinkSeverity overlinking() const {
        return o_.overlinking == LinkError::error ? LinkSeverity::error : LinkSeverity::warning;
    }
    void say(LinkSeverity s, const std::string& file, const std::string& text, std::string hint = {}) {
        if (hint.empty() && s != LinkSeverity::info)
            hint = "list the package that provides it in requirements/run (or in host, if it has run_exports), "
                   "or set build/error_overlinking: false to only warn";
        report_.messages.push_back({s, file, file.empty() ? text : file + ": " + text, std::move(hint)});
    }
    void check_file(const std::string& rel, const ElfInfo& elf);
    void in_prefix(const std::string& file, const std::string& needed, const std::string& path);
    void on_system(const std::string& file, const std::string& needed, const Resolved& r);
    void overdepending();
};

void Checker::in_prefix(const std::string& file, const std::string& needed, const std::string& path) {
    std::vector<const PrefixPackage*> in_run, all;
    if (auto it = owners_.find(path); it != owners_.end()) all = it->second;
    for (const auto* p : all)
        if (run_.count(p->name)) in_run.push_back(p);
    for (const auto* p : in_run) used_.insert(p->name);
    auto dists = [](const std::vector<const PrefixPackage*>& ps) {
        std::vector<std::string> d;
        for (const auto* p : ps) d.push_back(p->dist);
        return str::join(d, ", ");
    };
    if (in_run.size() == 1) return say(LinkSeverity::info, file, needed + " found in " + in_run[0]->dist);
    if (any_match(path, o_.missing_dso_whitelist))
        return say(LinkSeverity::info, file, needed + " (" + path + ") is in build/missing_dso_whitelist");
    if (in_run.empty() && !all.empty())
        return say(overlinking(), file,
                   needed + " resolves to " + path + " of " + dists(all) +
                       ", which is not a run dependency (overlinking)");
    if (in_run.size() > 1)
        return say(LinkSeverity::warning, file, needed + " is in several run dependencies: " + dists(in_run));
    say(overlinking(), file,
        needed + " resolves to " + path + " in the host prefix, which no package installed (overlinking)");
}

void Checker::on_system(const std::string& file, const std::string& needed, const Resolved& r) {
    const std::string shown = r.kind == Resolved::system ? r.path : "$RPATH/" + needed;
    for (const char* g : kSysrootLibraries)
        if (r.kind == Resolved::system && caseless_fnmatch(needed, g))
            return say(LinkSeverity::info, file, needed + " found in the sysroot (glibc)");
    for (const auto& s : o_.stand_ins) {
        if (r.kind != Resolved::system || !caseless_fnmatch(needed, s.library)) continue;
        for (const auto& p : s.packages)
            if (run_.count(p)) {
                used_.insert(p);
                return say(LinkSeverity::info, file, needed + " found in the host's stand-in for " + p);
            }
        return say(overlinking(), file,
                   needed + " (" + r.path + ") is the host's stand-in for " + str::join(s.packages, ", ") +
                       ", none of which is a run dependency (overlinking)");
    }
    if (any_match(shown, o_.missing_dso_whitelist) || any_match(needed, o_.missing_dso_whitelist))
        return say(LinkSeverity::info, file, needed + " is in build/missing_dso_whitelist");
    if (r.kind == Resolved::system)
        return say(overlinking(), file,
                   needed + " (" + r.path +
                       ") is not found in any run dependency, the sysroot nor build/missing_dso_whitelist (overlinking)");
    say(overlinking(), file,
        needed + " is not found in any package, the sysroot nor build/missing_dso_whitelist (overlinking; "
                 "searched the RPATH and the system library dirs)");
}

void Checker::check_file(const std::string& rel, const ElfInfo& elf) {
    // conda-build's relocation writes DT_RPATH; a DT_RUNPATH left over is
    // reported unless runpath_whitelist is set (post.py tests the list
    // itself, not its match, so any entry silences every file).
    if (elf.kind == RpathKind::runpath && o_.runpath_whitelist.empty())
        say(overlinking(), rel, "runpaths [" + elf.rpath + "] found (conda-build writes DT_RPATH)",
            "set build/runpath_whitelist to keep them");
    auto dirs = search_dirs(elf, rel, o_);
    for (const auto& needed : elf.needed) {
        Resolved r = resolve(needed, dirs, dir_, o_);
        if (r.kind == Resolved::self) say(LinkSeverity::info, rel, needed + " found in this package");
        else if (r.kind == Resolved::prefix) in_prefix(rel, needed, r.path);
        else on_system(rel, needed, r);
    }
}

void Checker::overdepending() {
    std::set<std::string> ignore(o_.ignore_run_exports.begin(), o_.ignore_run_exports.end());
    ignore.insert({"libgcc-ng", "libgcc"});  // conda-build's Linux additions
    for (const auto& p : o_.packages) {
        if (!run_.count(p.name) || ignore.count(p.name) || used_.count(p.name)) continue;
        Nature n = nature_of(p, o_.host_prefix);
        if (n == non_library || n == interpreter) continue;  // an interpreter is never reported for compiled files
        LinkSeverity s = (n == run_exports_library || n == dso_library) && o_.overdepending == LinkError::error
                             ? LinkSeverity::error
                             : LinkSeverity::warning;
        say(s, "",
            std::string(nature_name(n)) + " package " + p.dist +
                " is a run dependency but no file links it (overdepending, or linked statically)",
            "drop it from requirements/run, or add it to build/ignore_run_exports if that is intended");
    }
}

Result<LinkageReport> Checker::run() {
    std::vector<std::pair<std::string, ElfInfo>> elves;
    std::error_code ec;
    for (stdfs::recursive_directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->symlink_status(ec).type() != stdfs::file_type::regular) continue;
        std::string rel = it->path().lexically_relative(dir_).generic_string();
        if (str::starts_with(rel, "info/") || str::ends_with(rel, ".debug") || any_match(rel, o_.ignore_patterns))
            continue;
        auto elf = read_elf(it->path());
        if (!elf) return unexpected(elf.error());
        if (elf->is_elf && elf->is_dynamic) elves.emplace_back(rel, std::move(*elf));
    }
    if (ec) return fail(SourceLoc{dir_.string()}, "cannot list directory: " + ec.message());
    if (elves.empty()) return report_;  // nothing compiled: conda-build checks nothing either
    std::sort(elves.begin(), elves.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [rel, elf] : elves) check_file(rel, elf);
    overdepending();
    return report_;
}

}  // namespace

bool caseless_fnmatch(const std::string& path, const std::string& pattern) {
    std::string s = lower_slashed(path), p = lower_slashed(pattern);
    return s == p || fnmatch_at(s, 0, p, 0);
}

std::vector<stdfs::path> LinkageOptions::default_system_lib_dirs() {
    return {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"};
}

std::size_t LinkageReport::count(LinkSeverity s) const {
    return static_cast<std::size_t>(
        std::count_if(messages.begin(), messages.end(), [s](const LinkMessage& m) { return m.severity == s; }));
}

std::vector<StandIn> compiler_runtime_stand_ins() {
    return {
        {"libstdc++.so*", {"libstdcxx-ng", "libstdcxx"}},
        {"libgcc_s.so*", {"libgcc-ng", "libgcc"}},
        {"libgomp.so*", {"libgomp", "libgcc-ng", "libgcc"}},
        {"libatomic.so*", {"libgcc-ng", "libgcc"}},
        {"libquadmath.so*", {"libquadmath", "libgfortran5", "libgfortran-ng", "libgfortran"}},
        {"libgfortran.so*", {"libgfortran5", "libgfortran-ng", "libgfortran"}},
        {"libpython3*.so*", {"python"}},
    };
}

Result<LinkageReport> check_linkage(const stdfs::path& dir, const LinkageOptions& opts) {
    Checker c(dir, opts);
    return c.run();
}

Result<std::vector<PrefixPackage>> read_prefix_packages(const stdfs::path& prefix) {
    std::vector<PrefixPackage> out;
    std::error_code ec;
    const stdfs::path meta = prefix / "conda-meta";
    if (!stdfs::is_directory(meta, ec)) return out;
    std::vector<stdfs::path> records;
    for (const auto& e : stdfs::directory_iterator(meta, ec))
        if (e.path().extension() == ".json") records.push_back(e.path());
    std::sort(records.begin(), records.end());
    for (const auto& r : records) {
        auto text = fs::read_input_file(r);
        if (!text) return unexpected(text.error());
        auto j = types::parse_json_object(*text, r.string());
        if (!j) return unexpected(j.error());
        types::JsonFields f(*j, r.string());
        auto name = f.required_string("name");
        auto files = f.strings("files");
        auto version = f.string("version");
        auto build = f.string("build");
        if (!name) return unexpected(name.error());
        if (!files) return unexpected(files.error());
        if (!version) return unexpected(version.error());
        if (!build) return unexpected(build.error());
        PrefixPackage p;
        p.name = *name;
        p.version = std::move(*version);
        p.build = std::move(*build);
        p.dist = r.stem().string();
        p.files = std::move(*files);
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace sf::package
