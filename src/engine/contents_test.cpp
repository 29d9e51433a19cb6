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

// `{a,b}` alternates expanded (nested too), and `**/` as "" or "*/".
void expand(const std::string& g, std::vector<std::string>& out) {
    if (auto p = g.find("**/"); p != std::string::npos) {
        expand(g.substr(0, p) + g.substr(p + 3), out);
        expand(g.substr(0, p) + "*/" + g.substr(p + 3), out);
        return;
    }
    auto open = g.find('{');
    if (open == std::string::npos) {
        out.push_back(g);
        return;
    }
    int depth = 0;
    std::vector<std::string> alts;
    std::size_t start = open + 1;
    for (std::size_t i = open; i < g.size(); ++i) {
        if (g[i] == '{') ++depth;
        else if (g[i] == '}' && --depth == 0) {
            alts.push_back(g.substr(start, i - start));
            for (const auto& a : alts) expand(g.substr(0, open) + a + g.substr(i + 1), out);
            return;
        } else if (g[i] == ',' && depth == 1) {
            alts.push_back(g.substr(start, i - start));
            start = i + 1;
        }
    }
    out.push_back(g);  // unbalanced: taken literally, as fnmatch reads it
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
                for (const auto& g : section_globs(section, raw, pf, noarch_python)) expand(g, globs);
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
