// What an output's package holds besides its script's new files, as
// conda-build's bundle_conda adds it: the recipe's link scripts
// (create_post_scripts) and build/always_include_files.
#include <algorithm>
#include <set>

#include "engine/engine_detail.hpp"
#include "package/prefix_rules.hpp"
#include "script/capture.hpp"
#include "util/dir_handle.hpp"
#include "util/strings.hpp"

namespace sf::engine::detail {

namespace {

// A recipe-relative file name that stays in the recipe directory.
bool stays_inside(const std::string& rel) {
    if (rel.empty() || rel[0] == '/') return false;
    for (const auto& part : str::split(rel, '/'))
        if (part == "..") return false;
    return true;
}

}  // namespace

Result<std::vector<std::string>> add_link_scripts(const stdfs::path& recipe_dir, const render::RenderedOutput& o,
                                                  const stdfs::path& payload) {
    std::vector<std::string> added;
    for (const auto& [kind, file] : o.post_build.link_scripts) {
        if (!stays_inside(file))
            return fail(o.name + ": build/" + kind + ": '" + file + "' is not a file in the recipe directory",
                        "name a script next to meta.yaml");
        std::error_code ec;
        if (!stdfs::exists(stdfs::symlink_status(recipe_dir / file, ec))) continue;
        auto recipe = fs::Dir::open(recipe_dir);
        if (!recipe) return unexpected(recipe.error());
        auto text = recipe->read(file);  // a regular file, no symlink on the way
        if (!text) return unexpected(text.error());
        auto root = fs::Dir::open(payload, fs::Create::yes);
        if (!root) return unexpected(root.error());
        auto bin = root->sub("bin", fs::Create::yes);  // never through a symlink the build made
        if (!bin) return unexpected(bin.error());
        const std::string name = "." + o.name + "-" + kind + ".sh";
        if (auto ok = bin->write_atomic(name, *text, 0775); !ok) return unexpected(ok.error());
        added.push_back("bin/" + name);
    }
    return added;
}

Result<std::vector<std::string>> add_always_included(const stdfs::path& host_prefix, const render::RenderedOutput& o,
                                                     const std::vector<std::string>& files, const stdfs::path& payload,
                                                     std::vector<std::string>& unmatched) {
    const auto& patterns = o.post_build.always_include_files;
    if (patterns.empty()) return std::vector<std::string>{};
    auto snap = script::snapshot(host_prefix);
    const std::vector<std::string> all(snap.begin(), snap.end());
    const std::set<std::string> have(files.begin(), files.end());
    std::vector<std::string> extra;
    for (const auto& p : patterns) {
        auto hits = package::expand_globs({p}, all);
        if (hits.empty()) unmatched.push_back(p);
        for (const auto& h : hits)
            if (!have.count(h) && std::find(extra.begin(), extra.end(), h) == extra.end()) extra.push_back(h);
    }
    extra = script::package_files(std::move(extra));
    if (auto ok = script::copy_files(host_prefix, extra, payload); !ok) return unexpected(ok.error());
    return extra;
}

package::PrefixRules prefix_rules(const render::PostBuildKeys& k) {
    package::PrefixRules r;
    r.ignore = k.ignore_prefix_all ? package::IgnorePrefix::all : package::IgnorePrefix::listed;
    r.ignore_files = k.ignore_prefix_files;
    r.text_files = k.has_prefix_files;
    r.binary_files = k.binary_has_prefix_files;
    if (k.detect_binary_files_with_prefix)
        r.detect_binary = *k.detect_binary_files_with_prefix ? package::BinaryPrefix::detect : package::BinaryPrefix::ignore;
    return r;
}

}  // namespace sf::engine::detail
