#include <iostream>

#include "cli/commands.hpp"
#include "cli/variant_args.hpp"
#include "render/format.hpp"
#include "render/render.hpp"

namespace sf::cli {

void register_render(CLI::App& app, Action& action) {
    struct Opts {
        std::string recipe;
        VariantArgs variants;
        std::string output = "yaml";
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand("render", "Print every package a recipe produces, with exact build strings");
    sub->add_option("recipe", o->recipe, "Recipe directory (holds meta.yaml)")->required();
    o->variants.add_to(sub);
    sub->add_option("--output", o->output, "Output format")->check(CLI::IsMember({"yaml", "json", "builds"}));
    sub->callback([o, &action] {
        action = [o] {
            auto rr = value_or_throw(render::render_dir(o->recipe, o->variants.selection()));
            print_warnings(rr.warnings);
            if (o->output == "json")
                std::cout << render::to_json(rr).dump(2) << "\n";
            else if (o->output == "builds")
                std::cout << render::builds_tsv(rr);
            else
                std::cout << render::to_yaml(rr);
            return 0;
        };
    });
}

}  // namespace sf::cli
