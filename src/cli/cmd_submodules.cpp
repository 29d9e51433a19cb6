#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "feedstock/submodules.hpp"

namespace sf::cli {

void register_submodules(CLI::App& app, Cli& cli) {
    struct Opts {
        std::string source;
        std::string feedstock;
        std::string recipe;
        std::string platform;
        std::vector<std::string> repodata;
        std::string wheel;
        std::vector<std::string> maps;
        bool fail_on_mismatch = false;
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand(
        "submodules", "Compare bundled dependency versions (git submodules, wheel metadata) with the recipe and a channel");
    sub->add_option("--source", o->source, "The upstream git checkout (e.g. pytorch, cloned --recursive)")->required();
    sub->add_option("--feedstock", o->feedstock,
                    "The feedstock root: its recipe/ and feedstock/submodule-map.yaml (default: the current directory)");
    sub->add_option("--recipe", o->recipe, "Recipe directory whose pins to compare (default: FEEDSTOCK/recipe, when present)");
    sub->add_option("--platform", o->platform, "Platform to render the recipe for (default: this machine's)");
    sub->add_option("--repodata", o->repodata, "A repodata.json file or a channel directory (repeatable)");
    sub->add_option("--wheel", o->wheel, "A wheel (.whl), unpacked wheel dir or METADATA file: Python pins");
    sub->add_option("--map", o->maps,
                    "Extra name map (YAML `submodules:` / `wheel:` sections), on top of feedstock/submodule-map.yaml");
    add_json_flag(sub, cli, "Print JSON instead of a Markdown table");
    sub->add_flag("--fail-on-mismatch", o->fail_on_mismatch, "Exit 1 when a recipe pin excludes the upstream version");
    sub->callback([o, &cli] {
        cli.action = [o, &cli] {
            namespace stdfs = std::filesystem;
            feedstock::SubmoduleOptions so;
            so.source = o->source;
            if (!o->platform.empty()) so.platform = value_or_throw(types::Platform::parse(o->platform), "--platform");
            std::error_code ec;
            const stdfs::path root = o->feedstock.empty() ? stdfs::path() : stdfs::path(o->feedstock);
            if (!o->feedstock.empty() && !stdfs::is_directory(root, ec))
                throw Failure(Error{SourceLoc{o->feedstock}, "feedstock directory not found", {}});
            if (!o->recipe.empty())
                so.recipe_dir = recipe_dir_arg(o->recipe);
            else if (stdfs::exists(root / "recipe/meta.yaml", ec))
                so.recipe_dir = root / "recipe";
            if (stdfs::exists(root / "feedstock/submodule-map.yaml", ec))
                so.map_files.emplace_back(root / "feedstock/submodule-map.yaml");
            const bool no_map = so.map_files.empty() && o->maps.empty();
            for (const auto& m : o->maps) so.map_files.emplace_back(m);
            for (const auto& r : o->repodata) so.repodata.emplace_back(r);
            if (!o->wheel.empty()) so.wheel = o->wheel;
            auto rep = value_or_throw(feedstock::submodule_report(so));
            if (no_map)
                cli.console.warning("no name map: " + (root / "feedstock/submodule-map.yaml").string() +
                                    " not found (run from the feedstock root, or pass --feedstock DIR or --map FILE); "
                                    "every submodule shows as not mapped");
            if (cli.console.json)
                std::cout << feedstock::report_json(rep).dump(2) << "\n";
            else
                std::cout << feedstock::report_markdown(rep);
            int bad = 0;
            for (const auto& row : rep.rows)
                if (row.mismatch) {
                    ++bad;
                    std::string text = row.package + ": recipe pin '" + row.why + "' excludes upstream " +
                                       row.upstream_version + " (" + row.source + ")";
                    if (o->fail_on_mismatch)
                        cli.console.error(text);
                    else
                        cli.console.warning(text);
                }
            return o->fail_on_mismatch && bad ? 1 : 0;
        };
    });
}

}  // namespace sf::cli
