#include "cli/commands.hpp"

namespace sf::cli {

void register_package(CLI::App& app, Action& action) {
    auto* sub = app.add_subcommand("package", "(not yet implemented)");
    sub->callback([&action] { action = [] { return 0; }; });
}

}  // namespace sf::cli
