#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "feedstock/lint.hpp"

namespace sf::cli {

void register_lint(CLI::App& app, Cli& cli) {
    struct Opts {
        std::string recipe = "recipe";
        std::string variants_dir;
        std::vector<std::string> platforms;
        bool strict = false;
        std::vector<std::string> skip;
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand("lint", "Check a recipe: variant keys, patches, sha256, tests, pin_subpackage");
    sub->add_option("RECIPE", o->recipe, "Recipe directory, its meta.yaml or its recipe.yaml (default: recipe)");
    sub->add_option("--variants-dir", o->variants_dir,
                    "Variant files to check too (default: variants/ next to the recipe; recipe.yaml: .ci_support/)");
    sub->add_option("--platform", o->platforms, "Lint for this platform only (repeatable; default: all five)");
    sub->add_flag("--strict", o->strict,
                  "Report what conda-build accepts with a warning (unknown selector names, repeated keys) as errors");
    sub->add_option("--skip", o->skip,
                    "Silence a check by its id, shown in [brackets] (repeatable; also extra/splitforge/lint_skip)");
    add_json_flag(sub, cli);
    sub->callback([o, &cli] {
        cli.action = [o, &cli] {
            feedstock::LintOptions lo;
            lo.recipe_dir = recipe_dir_arg(o->recipe);
            if (!o->variants_dir.empty()) lo.variants_dir = o->variants_dir;
            lo.platforms = o->platforms;
            lo.strict = o->strict;
            lo.skip = o->skip;
            auto findings = value_or_throw(feedstock::lint(lo));
            int errors = 0, warnings = 0;
            nlohmann::json items = nlohmann::json::array();
            for (const auto& f : findings) {
                bool is_error = f.severity == feedstock::Severity::error;
                if (cli.console.json)
                    items.push_back({{"file", f.loc.file},
                                     {"line", f.loc.line},
                                     {"severity", is_error ? "error" : "warning"},
                                     {"id", f.id},
                                     {"message", f.message},
                                     {"suggestion", f.suggestion}});
                else
                    std::cout << f.str() << "\n";
                (is_error ? errors : warnings)++;
            }
            if (cli.console.json)
                cli.console.print_json({{"recipe", o->recipe}, {"errors", errors}, {"warnings", warnings}, {"findings", items}});
            std::cerr << o->recipe << ": " << errors << " error(s), " << warnings << " warning(s)\n";
            return errors ? static_cast<int>(Exit::failed) : 0;
        };
    });
}

}  // namespace sf::cli
