#include "cli/commands.hpp"

namespace sf::cli {

void register_cmake_cache(CLI::App& app, Action& action) {
    auto* sub = app.add_subcommand("cmake-cache", "(not yet implemented)");
    sub->callback([&action] { action = [] { return 0; }; });
}

}  // namespace sf::cli
