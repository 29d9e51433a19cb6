#include "cli/channel_args.hpp"

#include <filesystem>

#include "env/channel.hpp"
#include "env/condarc.hpp"

namespace sf::cli {

void add_override_channels_flag(CLI::App* sub, bool& into) {
    sub->add_flag("--override-channels", into, "Use only the -c channels, not those .condarc lists");
}

void load_user_config(Cli& cli) {
    static bool loaded = false;
    if (loaded) return;
    loaded = true;
    auto c = value_or_throw(env::load_config());
    for (const auto& w : env::apply_config(std::move(c))) cli.console.warning(w);
}

static bool same_path(const std::string& a, const std::string& b) {
    if (b.empty()) return false;
    std::error_code ec;
    return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

std::vector<std::string> solve_channels(Cli& cli, const std::vector<std::string>& given, bool override_channels,
                                        const std::string& output_folder) {
    load_user_config(cli);
    std::vector<std::string> out;
    for (const auto& ch : env::effective_channels(given, override_channels)) {
        // The output folder may not exist yet: `build -c OUT` is about to fill it.
        if (std::filesystem::exists(ch.value) || !same_path(ch.value, output_folder))
            value_or_throw(env::resolve_channel(ch.value), ch.source == "-c" ? "--channel" : ch.source);
        out.push_back(ch.value);
    }
    return out;
}

nlohmann::json config_json(const std::vector<std::string>& given, bool override_channels) {
    const env::Config& c = env::config();
    nlohmann::json channels = nlohmann::json::array();
    for (const auto& ch : env::effective_channels(given, override_channels)) {
        auto ref = env::resolve_channel(ch.value);
        channels.push_back({{"channel", env::masked(ch.value)},
                            {"url", ref ? ref->display : ""},
                            {"source", ch.source}});
    }
    nlohmann::json settings = nlohmann::json::array();
    for (const auto& s : env::shown_settings(c)) settings.push_back({{"key", s.key}, {"value", s.value}, {"source", s.source}});
    return {{"channels", channels}, {"settings", settings}, {"files", c.files}, {"override_channels", override_channels}};
}

}  // namespace sf::cli
