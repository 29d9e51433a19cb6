// splitforge render RECIPE [-m FILE]... [--variant K=V]... [--platform P]
//   [--format yaml|json|builds] [--output] [--output-folder DIR] [--json]
#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/variant_args.hpp"
#include "recipe/v1_recipe.hpp"
#include "render/format.hpp"
#include "render/render.hpp"

namespace sf::cli {

namespace {

// conda-build's `render --output`: the package files a build would write.
std::vector<std::string> package_paths(const render::RenderedRecipe& rr, const std::string& folder) {
    std::vector<std::string> out;
    for (const auto& o : rr.outputs) {
        std::string subdir = o.noarch == types::NoArch::none ? rr.platform.name() : "noarch";
        out.push_back((std::filesystem::path(folder) / subdir / (o.dist() + ".conda")).lexically_normal().string());
    }
    return out;
}

}  // namespace

bool rewrite_old_render_output(std::vector<std::string>& args) {
    auto render = std::find(args.begin(), args.end(), "render");
    bool rewrote = false;
    for (auto it = render; it != args.end(); ++it) {
        for (const char* f : {"yaml", "json", "builds"}) {
            if (*it == std::string("--output=") + f) {
                *it = std::string("--format=") + f;
                rewrote = true;
            } else if (*it == "--output" && it + 1 != args.end() && *(it + 1) == f) {
                *it = "--format";
                rewrote = true;
            }
        }
    }
    return rewrote;
}

void register_render(CLI::App& app, Cli& cli) {
    struct Opts {
        std::string recipe;
        VariantArgs variants;
        std::string format = "yaml";
        bool paths = false;
        std::string output_folder = "output";
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand("render", "Print every package a recipe produces, with exact build strings");
    sub->add_option("RECIPE", o->recipe, "Recipe directory, or its meta.yaml or recipe.yaml")->required();
    o->variants.add_to(sub);
    sub->add_option("--format", o->format, "yaml (default), json or builds (name, version, build; one per line)")
        ->check(one_of({"yaml", "json", "builds"}));
    // conda-build's meaning. The old `--output FORMAT` is still read, with a note.
    sub->add_flag("--output", o->paths, "Print the package paths a build would write (as conda-build does), and stop");
    add_output_folder(sub, o->output_folder, "The folder --output paths are under (default: output)");
    add_json_flag(sub, cli, "Print JSON (same as --format json)");
    sub->callback([o, &cli] {
        cli.action = [o, &cli] {
            std::string dir = recipe_dir_arg(o->recipe);
            auto rr = recipe::is_v1_recipe_dir(dir)
                          ? value_or_throw(render::render_dir(dir, o->variants.selection()))
                          : value_or_throw(render::render(load_checked_recipe(o->recipe), o->variants.selection()));
            print_warnings(cli.console, rr.warnings);
            if (o->paths) {
                auto paths = package_paths(rr, o->output_folder);
                if (cli.console.json)
                    cli.console.print_json(paths);
                else
                    for (const auto& p : paths) std::cout << p << "\n";
            } else if (cli.console.json || o->format == "json") {
                std::cout << render::to_json(rr).dump(2) << "\n";
            } else if (o->format == "builds") {
                std::cout << render::builds_tsv(rr);
            } else {
                std::cout << render::to_yaml(rr);
            }
            return 0;
        };
    });
}

}  // namespace sf::cli
