#include "cli/commands.hpp"

namespace sf::cli {

void register_render(CLI::App& app, Action& action) {
    auto* sub = app.add_subcommand("render", "(not yet implemented)");
    sub->callback([&action] { action = [] { return 0; }; });
}

}  // namespace sf::cli
