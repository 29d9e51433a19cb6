// splitforge wheel FOLDER --output-folder DIR [--package NAME] [--ldpath DIR]... [--compression deflate|stored] [--json]
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "binary/wheel.hpp"
#include "cli/commands.hpp"

namespace sf::cli {

namespace {

nlohmann::json report_json(const binary::WheelReport& w) {
    return {{"wheel", w.wheel.string()},           {"from", w.from},
            {"packages", w.packages},              {"wheel_size", w.wheel_size},
            {"conda_size", w.conda_size},          {"platform_tag", w.platform_tag},
            {"bundled", w.bundled},                {"system_libs", w.system_libs},
            {"skipped", w.skipped},                {"seconds", w.seconds}};
}

}  // namespace

void register_wheel(CLI::App& app, Cli& cli) {
    auto opts = std::make_shared<binary::WheelOptions>();
    auto input = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto* sub = app.add_subcommand(
        "wheel", "Write pip wheels (torch) from the pytorch packages a megabuild wrote; nothing recompiles, and nothing "
        "from the packages runs");
    sub->add_option("FOLDER", *input, "A channel, or any folder of .conda/.tar.bz2 files")->required();
    add_output_folder(sub, *out, "Where the wheels go (made if missing)", ShortO::yes)->required();
    sub->add_option("--package", opts->package, "Make one wheel per package of this name")->default_val("pytorch");
    sub->add_option("--ldpath", opts->library_dirs,
                    "Also bundle needed libraries found in this directory when no dependency provides them "
                    "(repeatable; none by default)");
    auto compression = std::make_shared<std::string>("deflate");
    sub->add_option("--compression", *compression, "How members are stored: deflate (as pip's wheels) or stored")
        ->check(one_of({"deflate", "stored"}))
        ->default_val("deflate");
    add_json_flag(sub, cli);
    sub->callback([&cli, opts, input, out, compression] {
        cli.action = [&cli, opts, input, out, compression] {
            opts->compression =
                *compression == "stored" ? binary::WheelCompression::stored : binary::WheelCompression::deflate;
            ConsoleReporter reporter(cli.console);
            opts->input = *input;
            opts->output_folder = *out;
            opts->reporter = &reporter;
            auto wheels = value_or_throw(binary::make_wheels(*opts));
            if (cli.console.json) {
                nlohmann::json j = nlohmann::json::array();
                for (const auto& w : wheels) j.push_back(report_json(w));
                cli.console.print_json({{"wheels", j}});
                return 0;
            }
            std::cout << fmt::format("{:<72} {:>10} {:>10} {:>7}\n", "wheel", "size", "conda", "time");
            for (const auto& w : wheels)
                std::cout << fmt::format("{:<72} {:>7.1f} KiB {:>6.1f} KiB {:>6.2f}s\n", w.wheel.filename().string(),
                                         w.wheel_size / 1024.0, w.conda_size / 1024.0, w.seconds);
            return 0;
        };
    });
}

}  // namespace sf::cli
