// recipe.yaml's package_contents test, as rattler-build's content_test.rs
// runs it: each section's names become globs over the package's paths
// (info/paths.json), `exists` globs must match at least one path,
// `not_exists` globs none, and `strict` wants every path matched.
// Globs follow globset's defaults: `*` crosses '/', `{a,b}` alternates
// (empty ones allowed), `**/` also matches no directory.
#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "archive/read.hpp"
#include "engine/engine_detail.hpp"
#include "util/strings.hpp"

namespace sf::engine::detail {

namespace {

// Bounds on one glob: each `{...}` or `**/` may double what it expands to,
// so a recipe's `{a,b}{a,b}...` must end in an error, not in memory exhaustion.
constexpr std::size_t kMaxGlobLength = 4096, kMaxGlobGroups = 64, kMaxGlobExpansions = 4096;

// The first top-level `{...}` of `g` from `open`: its alternatives and the
// index of its closing brace; npos when unbalanced (taken literally).
std::size_t brace_alternatives(const std::string& g, std::size_t open, std::vector<std::string>& alts) {
    int depth = 0;
    std::size_t start = open + 1;
    for (std::size_t i = open; i < g.size(); ++i) {
        if (g[i] == '{') ++depth;
        else if (g[i] == '}' && --depth == 0) {
            alts.push_back(g.substr(start, i - start));
            return i;
        } else if (g[i] == ',' && depth == 1) {
            alts.push_back(g.substr(start, i - start));
            start = i + 1;
        }
    }
    alts.clear();
    return std::string::npos;
}

// `{a,b}` alternates expanded (nested too), and `**/` as "" or "*/", over a
// work list (no recursion per group), within the bounds above.
Result<void> expand(const std::string& glob, std::vector<std::string>& out) {
    const auto too_big = [&](const std::string& why) {  // the test fails, as a mismatch does
        return fail_runtime({}, "package_contents: glob '" + glob.substr(0, 80) + (glob.size() > 80 ? "..." : "") + "' " + why,
                    "write the paths out, or use fewer {a,b} groups and **/");
    };
    if (glob.size() > kMaxGlobLength) return too_big("is longer than " + std::to_string(kMaxGlobLength) + " characters");
    std::size_t groups = static_cast<std::size_t>(std::count(glob.begin(), glob.end(), '{'));
    for (auto p = glob.find("**/"); p != std::string::npos; p = glob.find("**/", p + 3)) ++groups;
    if (groups > kMaxGlobGroups)
        return too_big("has more than " + std::to_string(kMaxGlobGroups) + " {a,b} groups and **/");
    std::vector<std::string> todo{glob};
    const std::size_t had = out.size();
    while (!todo.empty()) {
        std::string g = std::move(todo.back());
        todo.pop_back();
        std::vector<std::string> next;
        if (auto p = g.find("**/"); p != std::string::npos) {
            next = {g.substr(0, p) + "*/" + g.substr(p + 3), g.substr(0, p) + g.substr(p + 3)};
        } else if (auto open = g.find('{'); open != std::string::npos) {
            std::vector<std::string> alts;
            std::size_t close = brace_alternatives(g, open, alts);
            for (auto it = alts.rbegin(); it != alts.rend(); ++it) next.push_back(g.substr(0, open) + *it + g.substr(close + 1));
        }
        if (next.empty()) {  // nothing left to expand (an unbalanced brace is taken literally, as fnmatch reads it)
            out.push_back(std::move(g));
            continue;
        }
        for (auto& n : next) todo.push_back(std::move(n));
        if (out.size() - had + todo.size() > kMaxGlobExpansions)
            return too_big("expands to more than " + std::to_string(kMaxGlobExpansions) + " patterns");
    }
    return {};
}

bool matches(const std::vector<std::string>& globs, const std::string& path) {
    for (const auto& g : globs)
        if (::fnmatch(g.c_str(), path.c_str(), 0) == 0) return true;
    return false;
}

// One name of a section -> its globs (rattler-build's build_section_globs).
std::vector<std::string> section_globs(const std::string& section, const std::string& raw,
                                       const types::Platform& pf, bool noarch_python) {
    const bool win = pf.os() == "win", osx = pf.os() == "osx";
    if (section == "include") return {(win ? "Library/include/" : "include/") + raw};
    if (section == "bin") {
        if (!win) return {"bin/" + raw};
        std::string ext = "{,.exe,.bat,.cmd,.com,.ps1}";
        return {"Library/bin/" + raw + ext, "Scripts/" + raw + ext, "bin/" + raw + ext,
                "Library/mingw-w64/bin/" + raw + ext, "Library/usr/bin/" + raw + ext, raw + ext};
    }
    if (section == "lib") {
        if (win) {
            if (str::ends_with(raw, ".dll")) return {"Library/bin/" + raw};
            if (str::ends_with(raw, ".lib")) return {"Library/lib/" + raw};
            return {"Library/bin/" + raw + ".dll", "Library/lib/" + raw + ".lib"};
        }
        if (osx) {
            if (str::ends_with(raw, ".dylib") || str::ends_with(raw, ".a")) return {"lib/" + raw};
            return {"lib/{,lib}" + raw + ".dylib", "lib/{,lib}" + raw + ".*.dylib"};
        }
        if (str::ends_with(raw, ".so") || raw.find(".so.") != std::string::npos || str::ends_with(raw, ".a"))
            return {"lib/" + raw};
        return {"lib/{,lib}" + raw + ".so", "lib/{,lib}" + raw + ".so.*"};
    }
    if (section == "site_packages") {
        std::string base = noarch_python ? "site-packages" : win ? "Lib/site-packages" : "lib/python*/site-packages";
        if (raw.find('/') != std::string::npos) return {base + "/" + raw};
        std::string path = raw;
        std::replace(path.begin(), path.end(), '.', '/');
        return {base + "/" + path + ".py", base + "/" + path + "/__init__.py"};
    }
    return {raw};  // files
}

}  // namespace

Result<std::string> check_contents(const stdfs::path& pkg, const types::Test& t, const types::Platform& pf,
                                   bool noarch_python) {
    auto meta = archive::read_package_metadata(pkg);
    if (!meta) return unexpected(meta.error());
    if (!meta->paths) return fail(pkg.filename().string() + ": package_contents: the package has no info/paths.json");
    std::vector<std::string> paths;
    for (const auto& e : meta->paths->paths) paths.push_back(e.path);
    std::vector<std::string> issues;
    std::set<std::string> matched;
    for (const char* section : {"include", "bin", "lib", "site_packages", "files"}) {
        auto it = t.contents.find(section);
        if (it == t.contents.end()) continue;
        for (bool want : {true, false}) {
            for (const auto& raw : want ? it->second.exists : it->second.not_exists) {
                std::vector<std::string> globs;
                for (const auto& g : section_globs(section, raw, pf, noarch_python))
                    if (auto ok = expand(g, globs); !ok) return unexpected(ok.error());
                std::vector<std::string> hits;
                for (const auto& p : paths)
                    if (matches(globs, p)) hits.push_back(p);
                if (want && hits.empty()) issues.push_back("no match for " + std::string(section) + " glob: " + raw);
                if (!want && !hits.empty())
                    issues.push_back(std::string(section) + " not_exists glob " + raw + " matches " + hits.front());
                if (want) matched.insert(hits.begin(), hits.end());
            }
        }
    }
    if (t.contents_strict)
        for (const auto& p : paths)
            if (!matched.count(p)) {
                issues.push_back("strict: " + p + " is matched by no glob");
                break;
            }
    if (!issues.empty()) return fail_runtime({}, "package_contents: " + str::join(issues, "; "));  // a failed test
    return std::string("passed");
}

}  // namespace sf::engine::detail
