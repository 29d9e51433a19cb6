#include "cli/commands.hpp"

namespace sf::cli {

void register_install(CLI::App& app, Action& action) {
    auto* sub = app.add_subcommand("install", "(not yet implemented)");
    sub->callback([&action] { action = [] { return 0; }; });
}

}  // namespace sf::cli
