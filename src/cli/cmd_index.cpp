// splitforge index CHANNEL_DIR
#include <iostream>
#include <memory>

#include "channel/index.hpp"
#include "cli/commands.hpp"

namespace sf::cli {

void register_index(CLI::App& app, Action& action) {
    auto dir = std::make_shared<std::string>();
    auto* sub = app.add_subcommand("index", "Write repodata.json for every subdir of a local channel");
    sub->add_option("CHANNEL_DIR", *dir, "The channel directory")->required();
    sub->callback([&action, dir] {
        action = [dir] {
            auto stats = value_or_throw(channel::index_channel(*dir));
            for (const auto& w : stats.warnings) std::cerr << "splitforge: warning: " << w << "\n";
            std::cout << "indexed " << stats.packages << " package(s) in " << stats.subdirs << " subdir(s) ("
                      << stats.hashed << " read, " << stats.cached << " cached)\n";
            return 0;
        };
    });
}

}  // namespace sf::cli
