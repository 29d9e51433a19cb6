#pragma once
// What every command that solves shares about channels: `--override-channels`,
// the user's configuration read once (.condarc, CONDA_*, env/condarc.hpp),
// and the channel list a solve gets: -c first, then .condarc's.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"

namespace sf::cli {

void add_override_channels_flag(CLI::App* sub, bool& into);

// Reads the configuration (a malformed .condarc is an input error naming
// file:line) and applies it to channel names and transfers; warns once.
void load_user_config(Cli& cli);

// `given` (-c) then, unless `override_channels`, the configured channels,
// each checked by env::resolve_channel (an input error names its source).
// `output_folder` may be named before it exists (`build -c OUT` fills it).
std::vector<std::string> solve_channels(Cli& cli, const std::vector<std::string>& given, bool override_channels,
                                        const std::string& output_folder = {});

// The channels in order and every setting with its source, credentials
// masked: `config --show --json` and the `config` block of solving commands.
nlohmann::json config_json(const std::vector<std::string>& given, bool override_channels);

}  // namespace sf::cli
