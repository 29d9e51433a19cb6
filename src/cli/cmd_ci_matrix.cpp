#include <iostream>

#include "cli/commands.hpp"
#include "feedstock/ci_matrix.hpp"

namespace sf::cli {

void register_ci_matrix(CLI::App& app, Cli& cli) {
    struct Opts {
        std::string variants_dir = "variants";
        std::string format = "github";
        std::string subset = "all";
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand("ci-matrix", "Print the CI job matrix (GitHub Actions strategy.matrix) from variants/");
    sub->add_option("--variants-dir", o->variants_dir, "Directory of variant files (default: variants)");
    sub->add_option("--format", o->format, "github (one-line include list), json or text")
        ->check(one_of({"github", "json", "text"}));
    sub->add_option("--subset", o->subset,
                    "all (every job) or pr (the fewest jobs that hold every value of every key, each with the "
                    "values only it covers)")
        ->check(one_of({"all", "pr"}));
    add_json_flag(sub, cli, "Print JSON (same as --format json)");
    sub->callback([o, &cli] {
        cli.action = [o, &cli] {
            auto fmt = o->format == "json" || cli.console.json ? feedstock::MatrixFormat::json
                       : o->format == "text"                   ? feedstock::MatrixFormat::text
                                                               : feedstock::MatrixFormat::github;
            auto subset = o->subset == "pr" ? feedstock::MatrixSubset::pr : feedstock::MatrixSubset::all;
            std::cout << value_or_throw(feedstock::ci_matrix(o->variants_dir, fmt, subset));
            return 0;
        };
    });
}

}  // namespace sf::cli
