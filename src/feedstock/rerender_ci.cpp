// What `rerender` hands the workflow writer: which configs CI builds (the
// platforms conda-forge.yml's `provider:` gives github_actions), the PR
// subset among them, and the check job's own command line.
#include <algorithm>
#include <filesystem>

#include "feedstock/ci_matrix.hpp"
#include "feedstock/forge_config.hpp"
#include "feedstock/rerender.hpp"
#include "recipe/v1_recipe.hpp"

namespace sf::feedstock {

namespace {

// conda-forge.yml beside variants/ (the current directory): is it there, and
// does its `provider:` name github_actions for some platform?
struct Providers {
    bool file = false, asks_github = false;
    std::vector<std::string> github;  // subdirs whose provider is github_actions
};

Result<Providers> github_platforms(const std::filesystem::path& root) {
    Providers p;
    std::error_code ec;
    p.file = std::filesystem::exists(root / "conda-forge.yml", ec);
    if (!p.file) return p;
    auto forge = read_forge_config(root);
    if (!forge) return unexpected(forge.error());
    for (const auto& t : forge->targets())
        if (std::find(t.providers.begin(), t.providers.end(), "github_actions") != t.providers.end())
            p.github.push_back(t.subdir());
    p.asks_github = forge->provider_given && !p.github.empty();
    return p;
}

std::vector<std::string> check_args(const RerenderOptions& opts, const std::string& recipe, bool forge_asks) {
    std::vector<std::string> a = {recipe};
    if (!opts.variants_dir.empty() && opts.variants_dir != "variants") a.insert(a.end(), {"--variants-dir", opts.variants_dir.string()});
    if (!opts.workflows_dir.empty()) a.insert(a.end(), {"--workflows-dir", opts.workflows_dir.string()});
    for (const auto& f : opts.variant_files) a.insert(a.end(), {"-m", f.string()});
    for (const auto& f : opts.exclusive_files) a.insert(a.end(), {"-e", f.string()});
    if (opts.strict) a.push_back("--strict");
    if (!opts.ci.empty() && !forge_asks) a.insert(a.end(), {"--ci", opts.ci});
    a.push_back("--check");
    return a;
}

}  // namespace

std::filesystem::path feedstock_root(const RerenderOptions& opts) {
    if (opts.variants_dir.empty()) return ".";
    auto v = opts.variants_dir.lexically_normal();
    if (!v.has_filename()) v = v.parent_path();  // "variants/"
    auto parent = v.parent_path();
    return parent.empty() ? std::filesystem::path(".") : parent;
}

Result<std::optional<WorkflowInputs>> workflow_inputs(const RerenderOptions& opts, const RerenderResult& planned,
                                                      std::vector<std::string>& platforms) {
    auto prov = github_platforms(feedstock_root(opts));
    if (!prov) return unexpected(prov.error());
    if (opts.ci.empty() && !prov->asks_github) return std::optional<WorkflowInputs>{};
    WorkflowInputs in;
    in.recipe = opts.recipe_dir.generic_string();
    in.variants = opts.variants_dir.empty() ? std::string("variants") : opts.variants_dir.generic_string();
    in.setup = planned.ci_setup;
    in.smoke = planned.ci_smoke;
    if (!in.smoke.empty()) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(opts.recipe_dir / planned.ci_smoke_script, ec))
            return fail(SourceLoc{in.source}, "extra/splitforge/smoke: the smoke script " +
                                                  (opts.recipe_dir / planned.ci_smoke_script).generic_string() + " is not there",
                        "add it, or name another with smoke_script");
        in.smoke_script = in.recipe + "/" + planned.ci_smoke_script;
    }
    in.check_args = check_args(opts, in.recipe, prov->asks_github);
    in.source = (opts.recipe_dir / (recipe::is_v1_recipe_dir(opts.recipe_dir) ? "recipe.yaml" : "meta.yaml")).generic_string();
    for (const auto& j : planned.jobs)
        if (!prov->file || std::find(prov->github.begin(), prov->github.end(), j.platform) != prov->github.end())
            in.jobs.push_back(j);
    for (const auto& j : in.jobs)
        if (std::find(platforms.begin(), platforms.end(), j.platform) == platforms.end()) platforms.push_back(j.platform);
    for (const auto& j : pr_subset(in.jobs).jobs) in.pr.insert(j.name);
    return std::optional<WorkflowInputs>{std::move(in)};
}

}  // namespace sf::feedstock
