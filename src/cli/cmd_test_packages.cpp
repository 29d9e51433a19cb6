// splitforge test PKG... [-c CHANNEL]... [--keep-build] [--json]
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "env/condarc.hpp"
#include "cli/channel_args.hpp"
#include "env/channel.hpp"
#include "engine/engine.hpp"

namespace sf::cli {

void register_test(CLI::App& app, Cli& cli) {
    struct Opts {
        std::vector<std::string> packages, channels;
        bool keep = false, quiet = false, no_scripts = false, override_channels = false, offline = false;
        std::string pkgs_dir;
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand(
        "test", "Test existing packages (.conda/.tar.bz2) in a fresh prefix, as `conda build -t` does");
    sub->add_option("PKG", o->packages, "Package files to test")->required();
    sub->add_option("-c,--channel", o->channels,
                    "Channels for the dependencies: dirs, file://, http(s) URLs or names (the package's own channel is used first)");
    add_override_channels_flag(sub, o->override_channels);
    sub->add_flag("--keep-build,--dirty", o->keep, "Keep the test's work dir (prefix, log)");
    sub->add_flag("-q,--quiet", o->quiet, "Do not stream the tests' output");
    sub->add_flag("--no-scripts", o->no_scripts,
                  "Do not run the packages' pre-link/post-link/pre-unlink scripts in the test prefix");
    sub->add_flag("--offline", o->offline,
                  "The test prefix from the package and repodata caches only; ask no server (also CONDA_OFFLINE=true)");
    sub->add_option("--pkgs-dir", o->pkgs_dir, "Package cache (default: $SPLITFORGE_PKGS_DIR or ~/.cache/splitforge/pkgs)");
    add_json_flag(sub, cli);
    sub->callback([&cli, o] {
        cli.action = [&cli, o] {
            nlohmann::json results = nlohmann::json::array();
            int failed = 0;
            ConsoleReporter reporter(cli.console);
            for (const auto& pkg : o->packages) {
                engine::TestFileOptions to;
                to.package = pkg;
                // Each resolved now: a missing directory or a bad scheme is the user's input.
                for (const auto& c : solve_channels(cli, o->channels, o->override_channels)) to.channels.emplace_back(c);
                to.run_scripts = o->no_scripts ? env::RunScripts::no : env::RunScripts::yes;
                to.keep = o->keep ? engine::KeepBuild::yes : engine::KeepBuild::no;
                to.verbosity = o->quiet ? engine::Verbosity::quiet : engine::Verbosity::stream;
                to.progress = cli.console.progress ? engine::Progress::show : engine::Progress::hide;
                to.reporter = &reporter;
                to.pkgs_dir = o->pkgs_dir;
                to.network = o->offline || env::config().is_offline() ? env::Network::offline : env::Network::online;
                auto r = value_or_throw(engine::test_package_file(to));
                results.push_back({{"package", pkg},
                                   {"dist", r.dist},
                                   {"result", r.result},
                                   {"detail", r.detail},
                                   {"work_dir", r.work_dir.string()}});
                if (r.result == "failed") {
                    ++failed;
                    cli.console.error(r.dist + ": test failed: " + r.detail +
                                      (r.work_dir.empty() ? std::string() : " (work dir kept: " + r.work_dir.string() + ")"));
                } else if (!cli.console.json) {
                    std::cout << r.dist << ": " << (r.result == "none" ? "no tests" : "test passed") << "\n";
                }
            }
            if (cli.console.json) cli.console.print_json({{"results", results}, {"failed", failed}});
            return failed ? static_cast<int>(Exit::failed) : 0;
        };
    });
}

}  // namespace sf::cli
