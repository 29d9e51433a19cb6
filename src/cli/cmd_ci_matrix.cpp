#include <iostream>

#include "cli/commands.hpp"
#include "feedstock/ci_matrix.hpp"

namespace sf::cli {

void register_ci_matrix(CLI::App& app, Cli& cli) {
    struct Opts {
        std::string variants_dir = "variants";
        std::string format = "github";
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand("ci-matrix", "Print the CI job matrix (GitHub Actions strategy.matrix) from variants/");
    sub->add_option("--variants-dir", o->variants_dir, "Directory of variant files (default: variants)");
    sub->add_option("--format", o->format, "github (one-line include list) or json")
        ->check(one_of({"github", "json"}));
    add_json_flag(sub, cli, "Print JSON (same as --format json)");
    sub->callback([o, &cli] {
        cli.action = [o, &cli] {
            auto fmt = o->format == "json" || cli.console.json ? feedstock::MatrixFormat::json : feedstock::MatrixFormat::github;
            std::cout << value_or_throw(feedstock::ci_matrix(o->variants_dir, fmt));
            return 0;
        };
    });
}

}  // namespace sf::cli
