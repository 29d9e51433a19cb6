#include <iostream>

#include "cli/commands.hpp"
#include "cli/variant_args.hpp"
#include "recipe/v1_recipe.hpp"
#include "render/format.hpp"
#include "render/render.hpp"
#include "render/v1_render.hpp"

namespace sf::cli {

void register_variants(CLI::App& app, Cli& cli) {
    struct Opts {
        std::string recipe;
        VariantArgs variants;
        bool verbose = false;
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand("variants", "Print the variant matrix and why each key is used");
    sub->add_option("RECIPE", o->recipe, "Recipe directory, or its meta.yaml or recipe.yaml")->required();
    o->variants.add_to(sub);
    sub->add_flag("--verbose", o->verbose, "List every unused key (a global pinning brings hundreds)");
    add_json_flag(sub, cli);
    sub->callback([o, &cli] {
        cli.action = [o, &cli] {
            std::string dir = recipe_dir_arg(o->recipe);
            auto report = [&](const VariantArgs& args) {
                render::RenderedRecipe rr;
                if (recipe::is_v1_recipe_dir(dir)) {
                    auto v1 = value_or_throw(recipe::load_v1_recipe(dir));
                    rr = value_or_throw(render::render_v1(v1, args.selection()));
                    rr.key_uses = render::v1_key_uses(v1, rr);
                } else {
                    auto raw = load_checked_recipe(o->recipe);
                    rr = value_or_throw(render::render(raw, args.selection()));
                    rr.key_uses = render::key_uses(raw, rr);
                }
                print_warnings(cli.console, rr.warnings);
                return rr;
            };
            auto detail = o->verbose ? render::ReportDetail::full : render::ReportDetail::summary;
            auto jobs = ci_support_jobs(dir, o->variants);
            if (jobs.empty()) {
                auto rr = report(o->variants);
                if (cli.console.json) std::cout << render::variants_json(rr).dump(2) << "\n";
                else std::cout << render::variants_report(rr, detail);
                return 0;
            }
            // [ci-support-default] conda-build reads no .ci_support/; a feedstock's
            // variants are those files, one job each, as conda-smithy's linter reads them.
            cli.console.note("no -m or -e given: the variants of this feedstock's .ci_support/ (" +
                             std::to_string(jobs.size()) + " job file(s) for this platform) [ci-support-default]");
            nlohmann::json all = nlohmann::json::array();
            for (const auto& [file, args] : jobs) {
                auto rr = report(args);
                if (cli.console.json) {
                    all.push_back({{"file", file}, {"variants", render::variants_json(rr)}});
                } else {
                    std::cout << "== " << file << "\n" << render::variants_report(rr, detail);
                }
            }
            if (cli.console.json) std::cout << nlohmann::json{{"ci_support", all}}.dump(2) << "\n";
            return 0;
        };
    });
}

}  // namespace sf::cli
