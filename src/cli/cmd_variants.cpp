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
            render::RenderedRecipe rr;
            if (recipe::is_v1_recipe_dir(dir)) {
                auto v1 = value_or_throw(recipe::load_v1_recipe(dir));
                rr = value_or_throw(render::render_v1(v1, o->variants.selection()));
                rr.key_uses = render::v1_key_uses(v1, rr);
            } else {
                auto raw = load_checked_recipe(o->recipe);
                rr = value_or_throw(render::render(raw, o->variants.selection()));
                rr.key_uses = render::key_uses(raw, rr);
            }
            print_warnings(cli.console, rr.warnings);
            if (cli.console.json)
                std::cout << render::variants_json(rr).dump(2) << "\n";
            else
                std::cout << render::variants_report(rr, o->verbose ? render::ReportDetail::full
                                                                    : render::ReportDetail::summary);
            return 0;
        };
    });
}

}  // namespace sf::cli
