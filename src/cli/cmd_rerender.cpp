#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "feedstock/rerender.hpp"
#include "feedstock/smithy.hpp"
#include "util/strings.hpp"

namespace sf::cli {
namespace {

struct Opts {
    std::string recipe = "recipe";
    std::string variants_dir;
    std::vector<std::string> platforms;
    std::vector<std::string> variant_files, exclusive_files;
    std::string smithy_version, ci, workflows_dir;
    bool check = false, strict = false;
};

nlohmann::json workflows_json(const feedstock::RerenderResult& res) {
    if (!res.workflows) return nullptr;
    const auto& w = *res.workflows;
    return {{"dir", w.dir},       {"platforms", w.platforms}, {"files", w.files}, {"written", w.written},
            {"removed", w.removed}, {"stale", w.stale},         {"missing", w.missing}, {"extra", w.extra}};
}

void print_json(Cli& cli, const Opts& o, const feedstock::RerenderResult& res, const std::string& dir) {
    nlohmann::json jobs = nlohmann::json::array();
    for (const auto& j : res.jobs)
        jobs.push_back(
            {{"name", j.name}, {"platform", j.platform}, {"runner", j.runner}, {"timeout_minutes", j.timeout_minutes}});
    cli.console.print_json({{"variants_dir", dir},
                            {"feedstock", res.feedstock},
                            {"check", o.check},
                            {"up_to_date", res.up_to_date()},
                            {"jobs", jobs},
                            {"files", res.files},
                            {"written", res.written},
                            {"removed", res.removed},
                            {"stale", res.stale},
                            {"stale_keys", res.stale_keys},
                            {"missing", res.missing},
                            {"extra", res.extra},
                            {"skipped_platforms", res.skipped},
                            {"workflows", workflows_json(res)}});
}

// --check: one line per drifted file (variants and workflows), then the verdict.
int print_check(Cli& cli, const Opts& o, const feedstock::RerenderResult& res, const std::string& dir) {
    for (const auto& f : res.stale) {
        std::cout << "stale:   " << dir << "/" << f;
        if (auto it = res.stale_keys.find(f); it != res.stale_keys.end() && !it->second.empty())
            std::cout << "  (keys: " << str::join(it->second, ", ") << ")";
        std::cout << "\n";
    }
    for (const auto& f : res.missing) std::cout << "missing: " << dir << "/" << f << "\n";
    for (const auto& f : res.extra) std::cout << "extra:   " << dir << "/" << f << "\n";
    if (const auto& w = res.workflows) {
        for (const auto& f : w->stale) std::cout << "stale:   " << w->dir << "/" << f << "  (hand-edited or out of date)\n";
        for (const auto& f : w->missing) std::cout << "missing: " << w->dir << "/" << f << "\n";
        for (const auto& f : w->extra) std::cout << "extra:   " << w->dir << "/" << f << "\n";
    }
    if (!res.up_to_date()) {
        cli.console.error(dir + (res.workflows ? " or " + res.workflows->dir : std::string()) +
                          " is stale (run `splitforge rerender " + o.recipe + "` and commit the result)");
        return static_cast<int>(Exit::failed);
    }
    std::cout << dir << " is up to date (" << (res.feedstock ? res.files.size() : res.jobs.size()) << " configs)\n";
    if (res.workflows) std::cout << res.workflows->dir << " is up to date (" << res.workflows->files.size() << " workflows)\n";
    return 0;
}

void print_workflows(const feedstock::RerenderResult& res) {
    if (!res.workflows) return;
    const auto& w = *res.workflows;
    for (const auto& f : w.files) {
        bool changed = std::find(w.written.begin(), w.written.end(), f) != w.written.end();
        std::cout << (changed ? "wrote     " : "unchanged ") << w.dir << "/" << f << "  [" << str::join(w.platforms, ", ")
                  << "]\n";
    }
    for (const auto& f : w.removed) std::cout << "removed   " << w.dir << "/" << f << "\n";
}

int print_written(Cli& cli, const feedstock::RerenderResult& res, const std::string& dir) {
    if (res.feedstock) {
        for (const auto& f : res.files) {
            bool changed = std::find(res.written.begin(), res.written.end(), f) != res.written.end();
            std::cout << (changed ? "wrote     " : "unchanged ") << dir << "/" << f << "\n";
        }
        for (const auto& f : res.removed) std::cout << "removed   " << dir << "/" << f << "\n";
        for (const auto& p : res.skipped) std::cout << "no config for " << p << " (no output is built there)\n";
        std::cout << res.migrations << "\n";
        std::cout << res.files.size() << " configs, " << res.written.size() << " written, " << res.removed.size()
                  << " removed\n";
        return 0;
    }
    for (const auto& j : res.jobs) {
        bool changed = std::find(res.written.begin(), res.written.end(), j.name + ".yaml") != res.written.end();
        std::cout << (changed ? "wrote     " : "unchanged ") << dir << "/" << j.name << ".yaml  [" << j.runner << ", "
                  << j.timeout_minutes << " min]\n";
    }
    for (const auto& f : res.removed) std::cout << "removed   " << dir << "/" << f << "\n";
    for (const auto& f : res.extra)
        if (std::find(res.removed.begin(), res.removed.end(), f) == res.removed.end())
            cli.console.warning(dir + "/" + f + " was not written by rerender; left in place (delete it if it is stale)");
    for (const auto& p : res.skipped) std::cout << "no config for " << p << " (every output is skipped)\n";
    print_workflows(res);
    std::cout << res.jobs.size() << " configs, " << res.written.size() << " written, " << res.removed.size()
              << " removed\n";
    return 0;
}

int run_rerender(Cli& cli, const Opts& o) {
    feedstock::RerenderOptions ro;
    bool feedstock = feedstock::is_feedstock_dir(o.recipe);
    ro.recipe_dir = feedstock ? o.recipe : recipe_dir_arg(o.recipe);
    ro.variants_dir = o.variants_dir;
    ro.platforms = o.platforms;
    for (const auto& f : o.variant_files) ro.variant_files.emplace_back(f);
    for (const auto& f : o.exclusive_files) ro.exclusive_files.emplace_back(f);
    ro.strict = o.strict;
    ro.smithy_version = o.smithy_version;
    ro.ci = o.ci;
    ro.workflows_dir = o.workflows_dir;
    auto mode = o.check ? feedstock::RerenderMode::check : feedstock::RerenderMode::write;
    auto res = value_or_throw(feedstock::rerender(ro, mode));
    print_warnings(cli.console, res.warnings);
    std::string dir = !o.variants_dir.empty() ? o.variants_dir
                      : feedstock             ? (std::filesystem::path(o.recipe) / ".ci_support").string()
                                              : std::string("variants");
    if (cli.console.json) {
        print_json(cli, o, res, dir);
        return o.check && !res.up_to_date() ? static_cast<int>(Exit::failed) : 0;
    }
    if (o.check) return print_check(cli, o, res, dir);
    return print_written(cli, res, dir);
}

}  // namespace

void register_rerender(CLI::App& app, Cli& cli) {
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand(
        "rerender",
        "Write one variant file per CI job: variants/ for a recipe, or conda-smithy's .ci_support/ for a "
        "conda-forge feedstock dir; with --ci github also the CI workflows");
    sub->add_option("RECIPE", o->recipe,
                    "Recipe directory, its meta.yaml or recipe.yaml (default: recipe), or a feedstock directory "
                    "holding recipe/meta.yaml or recipe/recipe.yaml");
    sub->add_option("--variants-dir", o->variants_dir,
                    "Where the variant files go (default: variants, or FEEDSTOCK/.ci_support)");
    sub->add_option("--platform", o->platforms,
                    "Render for this platform only, and remove only its stale files (repeatable; default: every "
                    "platform)");
    sub->add_option("-m,--variant-config-files", o->variant_files, "Extra input variant config (repeatable)");
    sub->add_option("-e,--exclusive-config-file", o->exclusive_files,
                    "Global pinning file, e.g. conda-forge's conda_build_config.yaml (repeatable)");
    sub->add_option("--smithy-version", o->smithy_version,
                    "Feedstock: reproduce the files of this conda-smithy version (default: the newest rules)");
    sub->add_option("--ci", o->ci,
                    "Also write the CI workflows: github (.github/workflows/; also when ./conda-forge.yml's "
                    "provider: names github_actions)")
        ->check(one_of({"github"}));
    sub->add_option("--workflows-dir", o->workflows_dir, "Where the workflows go (default: .github/workflows)");
    sub->add_flag("--check", o->check, "Change nothing; exit 1 when the files are stale (2 on an input error)");
    add_json_flag(sub, cli);
    sub->add_flag("--strict", o->strict,
                  "Make what conda-build accepts with a warning (unknown selector names, repeated keys) an error");
    sub->callback([o, &cli] { cli.action = [o, &cli] { return run_rerender(cli, *o); }; });
}

}  // namespace sf::cli
