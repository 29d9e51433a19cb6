#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "feedstock/lint.hpp"

namespace sf::cli {

void register_lint(CLI::App& app, Action& action) {
    struct Opts {
        std::string recipe = "recipe";
        std::string variants_dir;
        std::vector<std::string> platforms;
        bool strict = false;
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand("lint", "Check a recipe: variant keys, patches, sha256, tests, pin_subpackage");
    sub->add_option("recipe", o->recipe, "Recipe directory (default: recipe)");
    sub->add_option("--variants-dir", o->variants_dir, "Variant files to check too (default: variants/ next to the recipe)");
    sub->add_option("--platform", o->platforms, "Lint for this platform only (repeatable; default: all five)");
    sub->add_flag("--strict", o->strict,
                  "Report what conda-build accepts with a warning (unknown selector names, repeated keys) as errors");
    sub->callback([o, &action] {
        action = [o] {
            feedstock::LintOptions lo;
            lo.recipe_dir = o->recipe;
            if (!o->variants_dir.empty()) lo.variants_dir = o->variants_dir;
            lo.platforms = o->platforms;
            lo.strict = o->strict;
            auto findings = value_or_throw(feedstock::lint(lo));
            int errors = 0, warnings = 0;
            for (const auto& f : findings) {
                std::cout << f.str() << "\n";
                (f.severity == feedstock::Severity::error ? errors : warnings)++;
            }
            std::cerr << o->recipe << ": " << errors << " error(s), " << warnings << " warning(s)\n";
            return errors ? 1 : 0;
        };
    });
}

}  // namespace sf::cli
