#include <iostream>

#include "cli/commands.hpp"
#include "cli/variant_args.hpp"
#include "render/format.hpp"
#include "render/render.hpp"

namespace sf::cli {

void register_variants(CLI::App& app, Action& action) {
    struct Opts {
        std::string recipe;
        VariantArgs variants;
        bool json = false;
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand("variants", "Print the variant matrix and why each key is used");
    sub->add_option("recipe", o->recipe, "Recipe directory (holds meta.yaml)")->required();
    o->variants.add_to(sub);
    sub->add_flag("--json", o->json, "Machine-readable output");
    sub->callback([o, &action] {
        action = [o] {
            auto raw = value_or_throw(recipe::RawRecipe::load(o->recipe));
            auto rr = value_or_throw(render::render(raw, o->variants.selection()));
            rr.key_uses = render::key_uses(raw, rr);
            print_warnings(rr.warnings);
            if (o->json)
                std::cout << render::variants_json(rr).dump(2) << "\n";
            else
                std::cout << render::variants_report(rr);
            return 0;
        };
    });
}

}  // namespace sf::cli
