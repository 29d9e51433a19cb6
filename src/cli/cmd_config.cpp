// splitforge config --show [-c CHANNEL]... [--override-channels] [--json]
#include <iostream>
#include <memory>

#include "cli/channel_args.hpp"
#include "cli/commands.hpp"

namespace sf::cli {

namespace {
struct ConfigArgs {
    bool show = false, override_channels = false;
    std::vector<std::string> channels;
};

void print_config(const nlohmann::json& j) {
    std::cout << "channels:\n";
    if (j["channels"].empty()) std::cout << "  (none: give -c CHANNEL or list channels in .condarc)\n";
    for (const auto& ch : j["channels"]) {
        std::cout << "  " << ch["channel"].get<std::string>();
        if (ch["url"] != ch["channel"]) std::cout << " -> " << ch["url"].get<std::string>();
        std::cout << "  (" << ch["source"].get<std::string>() << ")\n";
    }
    std::cout << "settings:\n";
    for (const auto& s : j["settings"])
        std::cout << "  " << s["key"].get<std::string>() << ": " << s["value"].get<std::string>() << "  ("
                  << s["source"].get<std::string>() << ")\n";
    std::cout << "files read:\n";
    if (j["files"].empty()) std::cout << "  (none)\n";
    for (const auto& f : j["files"]) std::cout << "  " << f.get<std::string>() << "\n";
}
}  // namespace

void register_config(CLI::App& app, Cli& cli) {
    auto a = std::make_shared<ConfigArgs>();
    auto* sub = app.add_subcommand("config", "Show the channels and settings a solve uses (.condarc, CONDA_*), and where each came from");
    sub->add_flag("--show", a->show, "Print the channels in order and every setting with its source")->required();
    sub->add_option("-c,--channel", a->channels, "A channel as the solving commands take it (shown first)");
    add_override_channels_flag(sub, a->override_channels);
    add_json_flag(sub, cli);
    sub->callback([&cli, a] {
        cli.action = [&cli, a] {
            solve_channels(cli, a->channels, a->override_channels);  // checks each, as a solve would
            auto j = config_json(a->channels, a->override_channels);
            if (cli.console.json) cli.console.print_json(j);
            else print_config(j);
            return 0;
        };
    });
}

}  // namespace sf::cli
