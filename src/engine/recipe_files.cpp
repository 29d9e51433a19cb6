// info/recipe/: the recipe a package was built from, as conda-build
// (copy_recipe) and rattler-build (write_recipe_folder) put it in the
// package, so that `conda`-side tools and people can see how it was made.
#include <algorithm>
#include <regex>
#include <system_error>

#include <yaml-cpp/yaml.h>

#include "engine/engine_detail.hpp"
#include "render/format.hpp"
#include "util/strings.hpp"

namespace sf::engine::detail {

namespace {

bool inside(const stdfs::path& p, const stdfs::path& dir) {
    if (dir.empty()) return false;
    auto rel = p.lexically_relative(dir);
    return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

std::vector<std::string> recipe_dir_files(const stdfs::path& root, const std::vector<stdfs::path>& leave_out,
                                          bool hidden) {
    std::vector<std::string> out;
    std::error_code ec;
    std::vector<stdfs::path> skip;
    for (const auto& d : leave_out)
        if (!d.empty()) skip.push_back(stdfs::weakly_canonical(d, ec));
    stdfs::path canon = stdfs::weakly_canonical(root, ec);
    auto it = stdfs::recursive_directory_iterator(root, ec);
    for (; !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        stdfs::path abs = canon / stdfs::relative(it->path(), root, ec);
        std::string name = it->path().filename().string();
        if (it->is_directory(ec) && !it->is_symlink(ec)) {
            bool skipped = hidden && str::starts_with(name, ".");
            for (const auto& d : skip) skipped = skipped || abs == d || inside(abs, d);
            if (skipped) it.disable_recursion_pending();
            continue;
        }
        if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
        if (hidden && str::starts_with(name, ".")) continue;
        out.push_back(stdfs::relative(it->path(), root, ec).generic_string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

// conda-build's utils.filter_files on the recipe's file list.
bool conda_build_filtered(const std::string& rel) {
    static const std::regex patterns[] = {std::regex(R"((.*/)?\.git/.*)"), std::regex(R"((.*/)?\.git)"),
                                          std::regex(R"((.*)?\.DS_Store.*)"), std::regex(R"(.*\.la)"),
                                          std::regex(R"(conda-meta.*)"), std::regex(R"(.*\.conda_trash(?:_\d+)*)")};
    return std::any_of(std::begin(patterns), std::end(patterns),
                       [&](const std::regex& r) { return std::regex_match(rel, r); });
}

// The full variant, one `key: value` per line, sorted, as conda-build dumps
// m.config.variant into info/recipe/conda_build_config.yaml.
std::string variant_yaml(const variant::Variant& v) {
    YAML::Emitter e;
    e << YAML::BeginMap;
    for (const auto& [k, val] : v.as_map()) e << YAML::Key << k << YAML::Value << val;
    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

YAML::Node to_node(const nlohmann::json& j) {
    YAML::Node n;
    if (j.is_object()) {
        for (const auto& [k, v] : j.items()) n[k] = to_node(v);
    } else if (j.is_array()) {
        for (const auto& v : j) n.push_back(to_node(v));
    } else if (j.is_string()) {
        n = j.get<std::string>();
    } else if (!j.is_null()) {
        n = j.dump();
    }
    return n;
}

// The output's rendering, with its about: section.
std::string rendered_doc(const render::RenderedOutput& o) {
    std::string doc = render::output_yaml(o);
    if (!o.about.empty()) {
        YAML::Emitter e;
        YAML::Node about;
        about["about"] = to_node(o.about);
        e << about;
        doc += std::string("\n") + e.c_str();
    }
    return doc + "\n";
}

// conda-build's info/recipe/meta.yaml: a header, then the rendering.
std::string rendered(const render::RenderedOutput& o, const std::string& origin) {
    std::string head = "# This file created by splitforge\n";
    if (!origin.empty()) head += "# meta.yaml template originally from:\n# " + origin + "\n";
    return head + "# ------------------------------------------------\n\n" + rendered_doc(o);
}

std::vector<package::ExtraFile> conda_build_recipe(const Ctx& ctx, const Staging& st, const render::RenderedOutput& o) {
    std::vector<package::ExtraFile> out;
    auto files = recipe_dir_files(st.recipe_dir, {ctx.output, ctx.work}, false);
    std::erase_if(files, conda_build_filtered);
    if (o.is_staging) {
        // The recipe's own package: its files, the template and its rendering.
        for (const auto& f : files)
            if (f != "meta.yaml" && f != "conda_build_config.yaml") out.push_back({f, st.recipe_dir / f, {}});
        out.push_back({"meta.yaml.template", st.recipe_dir / "meta.yaml", {}});
        out.push_back({"meta.yaml", {}, rendered(o, st.recipe_dir.filename().string() + "/meta.yaml")});
    } else {
        // An output: the whole recipe under parent/, its script beside its rendering.
        for (const auto& f : files) out.push_back({"parent/" + f, st.recipe_dir / f, {}});
        std::error_code ec;
        if (!o.script.empty() && stdfs::is_regular_file(st.recipe_dir / o.script, ec))
            out.push_back({stdfs::path(o.script).lexically_normal().generic_string(), st.recipe_dir / o.script, {}});
        out.push_back({"meta.yaml", {}, rendered(o, "")});
    }
    out.push_back({"conda_build_config.yaml", {}, variant_yaml(o.variant)});
    return out;
}

// rattler-build: the recipe folder (dot-files left out; a .gitignore is not
// read [recipe-gitignore]), the recipe file as recipe.yaml, the variant and
// the rendered recipe.
std::vector<package::ExtraFile> rattler_recipe(const Ctx& ctx, const Staging& st, const render::RenderedOutput& o) {
    std::vector<package::ExtraFile> out;
    for (const auto& f : recipe_dir_files(st.recipe_dir, {ctx.output, ctx.work}, true))
        if (f != "variant_config.yaml" && f != "rendered_recipe.yaml") out.push_back({f, st.recipe_dir / f, {}});
    std::map<std::string, std::string> used(o.used.begin(), o.used.end());
    YAML::Emitter e;
    e << YAML::BeginMap;
    for (const auto& [k, v] : used) e << YAML::Key << k << YAML::Value << v;
    e << YAML::EndMap;
    out.push_back({"variant_config.yaml", {}, std::string(e.c_str()) + "\n"});
    out.push_back({"rendered_recipe.yaml", {}, rendered_doc(o)});
    return out;
}

}  // namespace

std::vector<package::ExtraFile> recipe_files(const Ctx& ctx, const Staging& st, const render::RenderedOutput& o) {
    auto out = st.format == render::RecipeFormat::recipe_yaml ? rattler_recipe(ctx, st, o) : conda_build_recipe(ctx, st, o);
    // A generated file wins over a recipe file of the same name.
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.dest < b.dest; });
    std::vector<package::ExtraFile> unique;
    for (auto& f : out) {
        if (!unique.empty() && unique.back().dest == f.dest) unique.back() = std::move(f);
        else unique.push_back(std::move(f));
    }
    return unique;
}

}  // namespace sf::engine::detail
