#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "feedstock/rerender.hpp"

namespace sf::cli {

void register_rerender(CLI::App& app, Cli& cli) {
    struct Opts {
        std::string recipe = "recipe";
        std::string variants_dir = "variants";
        std::vector<std::string> platforms;
        std::vector<std::string> variant_files, exclusive_files;
        bool check = false, strict = false;
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand("rerender", "Write one variant file per CI job into variants/ (conda-smithy style)");
    sub->add_option("RECIPE", o->recipe, "Recipe directory or its meta.yaml (default: recipe)");
    sub->add_option("--variants-dir", o->variants_dir, "Where the variant files go (default: variants)");
    sub->add_option("--platform", o->platforms,
                    "Render for this platform only (repeatable; default: linux-64 linux-aarch64 osx-64 osx-arm64 win-64)");
    sub->add_option("-m,--variant-config-files", o->variant_files, "Extra input variant config (repeatable)");
    sub->add_option("-e,--exclusive-config-file", o->exclusive_files,
                    "Global pinning file, e.g. conda-forge's conda_build_config.yaml (repeatable)");
    sub->add_flag("--check", o->check, "Change nothing; exit 1 when variants/ is stale (2 on an input error)");
    add_json_flag(sub, cli);
    sub->add_flag("--strict", o->strict,
                  "Make what conda-build accepts with a warning (unknown selector names, repeated keys) an error");
    sub->callback([o, &cli] {
        cli.action = [o, &cli] {
            feedstock::RerenderOptions ro;
            ro.recipe_dir = recipe_dir_arg(o->recipe);
            ro.variants_dir = o->variants_dir;
            ro.platforms = o->platforms;
            for (const auto& f : o->variant_files) ro.variant_files.emplace_back(f);
            for (const auto& f : o->exclusive_files) ro.exclusive_files.emplace_back(f);
            ro.strict = o->strict;
            auto mode = o->check ? feedstock::RerenderMode::check : feedstock::RerenderMode::write;
            auto res = value_or_throw(feedstock::rerender(ro, mode));
            print_warnings(cli.console, res.warnings);
            std::string dir = o->variants_dir;
            if (cli.console.json) {
                nlohmann::json jobs = nlohmann::json::array();
                for (const auto& j : res.jobs)
                    jobs.push_back({{"name", j.name},
                                    {"platform", j.platform},
                                    {"runner", j.runner},
                                    {"timeout_minutes", j.timeout_minutes}});
                cli.console.print_json({{"variants_dir", dir},
                                        {"check", o->check},
                                        {"up_to_date", res.up_to_date()},
                                        {"jobs", jobs},
                                        {"written", res.written},
                                        {"removed", res.removed},
                                        {"stale", res.stale},
                                        {"missing", res.missing},
                                        {"extra", res.extra},
                                        {"skipped_platforms", res.skipped}});
                if (o->check && !res.up_to_date()) {
                    cli.console.error(dir + " is stale (run `splitforge rerender " + o->recipe +
                                      "` and commit the result)");
                    return static_cast<int>(Exit::failed);
                }
                return 0;
            }
            if (o->check) {
                for (const auto& f : res.stale) std::cout << "stale:   " << dir << "/" << f << "\n";
                for (const auto& f : res.missing) std::cout << "missing: " << dir << "/" << f << "\n";
                for (const auto& f : res.extra) std::cout << "extra:   " << dir << "/" << f << "\n";
                if (!res.up_to_date()) {
                    cli.console.error(dir + " is stale (run `splitforge rerender " + o->recipe +
                                      "` and commit the result)");
                    return static_cast<int>(Exit::failed);
                }
                std::cout << dir << " is up to date (" << res.jobs.size() << " configs)\n";
                return 0;
            }
            for (const auto& j : res.jobs) {
                bool changed = std::find(res.written.begin(), res.written.end(), j.name + ".yaml") != res.written.end();
                std::cout << (changed ? "wrote     " : "unchanged ") << dir << "/" << j.name << ".yaml  ["
                          << j.runner << ", " << j.timeout_minutes << " min]\n";
            }
            for (const auto& f : res.removed) std::cout << "removed   " << dir << "/" << f << "\n";
            for (const auto& f : res.extra)
                if (std::find(res.removed.begin(), res.removed.end(), f) == res.removed.end())
                    cli.console.warning(dir + "/" + f +
                                        " was not written by rerender; left in place (delete it if it is stale)");
            for (const auto& p : res.skipped) std::cout << "no config for " << p << " (every output is skipped)\n";
            std::cout << res.jobs.size() << " configs, " << res.written.size() << " written, " << res.removed.size()
                      << " removed\n";
            return 0;
        };
    });
}

}  // namespace sf::cli
