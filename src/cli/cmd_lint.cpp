#include "cli/commands.hpp"
#include "core/error.hpp"

namespace sf::cli {

void register_lint(CLI::App& app, Action& action) {
    auto* sub = app.add_subcommand("lint", "(being written)");
    sub->allow_extras();
    sub->callback([&action] {
        action = [] {
            throw Failure(Error{{}, "'lint' is not implemented yet", {}});
            return 1;
        };
    });
}

}  // namespace sf::cli
