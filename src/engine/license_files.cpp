// about.license_file -> info/licenses/, as conda-build (meta.yaml) and
// rattler-build (recipe.yaml) package it. conda-forge's linter requires a
// license file, so every published package carries one.
#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "engine/engine_detail.hpp"
#include "util/strings.hpp"

namespace sf::engine::detail {

namespace {


// Regular files below `root` (relative paths as walked, sorted; relative()
// would resolve a symlink's target into "../.."); symlinked directories
// are not entered.
std::vector<std::string> files_below(const stdfs::path& root) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(root, ec); !ec && it != stdfs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec)) out.push_back(it->path().lexically_relative(root).generic_string());
    std::sort(out.begin(), out.end());
    return out;
}

// The source and recipe folders as the kernel names them, for comparing
// with where a symlink leads.
struct Roots {
    std::vector<stdfs::path> dirs;
    explicit Roots(const Staging& st) {
        for (const auto* d : {&st.src_dir, &st.recipe_dir}) {
            std::error_code ec;
            auto c = stdfs::canonical(*d, ec);
            if (!ec) dirs.push_back(c);
        }
    }
    // Whether root/rel may be read: where it really is stays inside a
    // folder, or no symlink below `root` changes where it is (a `..` or
    // absolute spelling, which the caller warns about). A source's symlink
    // may lead anywhere (git and path sources keep their links), and a
    // licence read through it would ship someone else's file.
    bool readable(const stdfs::path& root, const std::string& rel) const {
        std::error_code ec;
        stdfs::path real = stdfs::canonical(root / rel, ec);
        if (ec) return true;  // missing: the caller's own checks say so
        for (const auto& d : dirs) {
            auto r = real.lexically_relative(d);
            if (!r.empty() && *r.begin() != "..") return true;
        }
        stdfs::path base = stdfs::canonical(root, ec);
        stdfs::path lex = ((ec ? root : base) / rel).lexically_normal();
        if (!lex.has_filename()) lex = lex.parent_path();
        return lex == real;
    }
};

std::string outside_warning(const std::string& entry, const std::string& file) {
    return "about/license_file entry '" + entry + "': " + file +
           " is a symlink or lies under one that leads outside the source and recipe folders; not packaged "
           "[license-file-outside]";
}

// Appends dir's files under dest/ (a license directory, "LICENSES/"), each
// one Roots::readable allows.
void add_tree(const stdfs::path& dir, const std::string& dest, const std::string& entry, const Roots& roots,
              std::vector<package::ExtraFile>& out, std::vector<std::string>& warnings) {
    for (const auto& rel : files_below(dir)) {
        if (roots.readable(dir, rel)) out.push_back({dest + "/" + rel, dir / rel, {}});
        else warnings.push_back(outside_warning(entry, rel));
    }
}

// conda-build's generic_copy(m, "license", "license_file").
Result<std::vector<package::ExtraFile>> conda_build_licenses(const Staging& st, const std::vector<std::string>& list,
                                                             std::vector<std::string>& warnings) {
    std::vector<package::ExtraFile> out;
    int count = 0;
    std::error_code ec;
    const Roots roots(st);
    for (const auto& e : list) {
        if (e.empty()) continue;  // conda-build skips an empty entry
        const stdfs::path* root = &st.src_dir;
        if (!stdfs::exists(*root / e, ec)) root = &st.recipe_dir;
        stdfs::path src = *root / e;
        bool dir = stdfs::is_directory(src, ec), file = stdfs::is_regular_file(src, ec);
        if (dir && !str::ends_with(e, "/"))
            return fail("about/license_file entry '" + e + "' is a directory but does not end with '/'",
                        "append a '/' to package the folder and all its content as license files");
        if (!dir && !file)
            return fail("about/license_file entry '" + e +
                            "' does not exist in the source root dir or in the recipe root dir",
                        "name a file of the source or of the recipe folder");
        std::string dest = e;
        // conda-build renames what it cannot place below info/licenses/.
        if (stdfs::path(e).is_absolute() || str::starts_with(e, ".")) {
            dest = "LICENSE" + std::to_string(count++) + (file ? ".txt" : "");
            warnings.push_back("about/license_file entry '" + e + "' is packaged as info/licenses/" + dest +
                               " [license-file-outside]");
        }
        while (str::ends_with(dest, "/")) dest.pop_back();
        if (!roots.readable(*root, e)) warnings.push_back(outside_warning(e, e));
        else if (dir) add_tree(src, dest, e, roots, out, warnings);
        else out.push_back({dest, src, {}});
    }
    return out;
}

bool has_glob(const std::string& s) { return s.find_first_of("*?[{") != std::string::npos; }

// globset's defaults, as rattler-build's GlobVec: `*` crosses '/', and a
// leading `**/` also matches no directory.
bool glob_match(const std::string& g, const std::string& rel) {
    if (::fnmatch(g.c_str(), rel.c_str(), 0) == 0) return true;
    return str::starts_with(g, "**/") && ::fnmatch(g.c_str() + 3, rel.c_str(), 0) == 0;
}

// rattler-build's copy_license_files: each glob over the work dir, then
// the recipe dir, whose copy wins. Absolute paths are refused (rattler-build
// without --allow-absolute-license-paths).
Result<std::vector<package::ExtraFile>> rattler_licenses(const Staging& st, const std::vector<std::string>& list,
                                                         std::vector<std::string>& warnings) {
    std::map<std::string, const stdfs::path*> picked;  // dest (its path below the folder) -> the folder
    std::vector<std::string> missing;
    std::optional<std::vector<std::string>> work_files, recipe_files;
    for (const auto& g : list) {
        if (stdfs::path(g).is_absolute())
            return fail("absolute paths in license_file are not allowed: " + g,
                        "name the file relative to the source or recipe folder");
        bool found = false;
        std::set<std::string> from_work;
        for (const auto* root : {&st.src_dir, &st.recipe_dir}) {
            auto& cache = root == &st.src_dir ? work_files : recipe_files;
            std::vector<std::string> hits;
            std::error_code ec;
            if (!has_glob(g)) {
                // A walk never yields a path above the root: "../x" matches nothing.
                std::string rel = stdfs::path(g).lexically_normal().generic_string();
                if (!str::starts_with(rel, "..") && stdfs::is_regular_file(*root / rel, ec)) hits.push_back(rel);
            } else {
                if (!cache) cache = files_below(*root);
                for (const auto& rel : *cache)
                    if (glob_match(g, rel)) hits.push_back(rel);
            }
            for (const auto& rel : hits) {
                if (root == &st.recipe_dir && from_work.count(rel))
                    warnings.push_back("license file from the source directory was overwritten by the one from the "
                                       "recipe folder (" + rel + ")");
                if (root == &st.src_dir) from_work.insert(rel);
                picked[rel] = root;
                found = true;
            }
        }
        if (!found) missing.push_back(g);
    }
    if (!missing.empty())
        return fail("the following license files were not found: " + str::join(missing, ", "),
                    "license_file globs match files of the source (work) folder or of the recipe folder");
    std::vector<package::ExtraFile> out;
    const Roots roots(st);
    for (const auto& [dest, root] : picked) {
        if (roots.readable(*root, dest)) out.push_back({dest, *root / dest, {}});
        else warnings.push_back(outside_warning(dest, dest));
    }
    return out;
}

}  // namespace

std::vector<std::string> license_file_entries(const nlohmann::json& about) {
    std::vector<std::string> out;
    if (!about.contains("license_file")) return out;
    const auto& v = about["license_file"];
    if (v.is_string()) out.push_back(v.get<std::string>());
    if (v.is_array())
        for (const auto& e : v)
            if (e.is_string()) out.push_back(e.get<std::string>());
    return out;
}

Result<std::vector<package::ExtraFile>> license_files(const Staging& st, const render::RenderedOutput& o,
                                                      std::vector<std::string>& warnings) {
    auto list = license_file_entries(o.about);
    if (list.empty()) return std::vector<package::ExtraFile>{};
    return st.format == render::RecipeFormat::recipe_yaml ? rattler_licenses(st, list, warnings)
                                                          : conda_build_licenses(st, list, warnings);
}

}  // namespace sf::engine::detail
