#include "cli/commands.hpp"
#include "core/error.hpp"

namespace sf::cli {

void register_submodules(CLI::App& app, Action& action) {
    auto* sub = app.add_subcommand("submodules", "(being written)");
    sub->allow_extras();
    sub->callback([&action] {
        action = [] {
            throw Failure(Error{{}, "'submodules' is not implemented yet", {}});
            return 1;
        };
    });
}

}  // namespace sf::cli
