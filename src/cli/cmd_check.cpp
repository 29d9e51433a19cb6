// splitforge check FILE... [-c CHANNEL]... [--system-map FILE]... [--consumer] [--json]
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "binary/check.hpp"
#include "cli/commands.hpp"
#include "env/condarc.hpp"
#include "cli/channel_args.hpp"
#include "env/channel.hpp"
#include "env/provider_map.hpp"
#include "util/strings.hpp"

namespace sf::cli {

namespace {
struct CheckArgs {
    std::vector<std::string> files, channels, system_maps;
    std::string pkgs_dir;
    bool consumer = false, offline = false;
};

nlohmann::json result_json(const binary::CheckResult& r) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : r.findings) findings.push_back({{"member", f.member}, {"problem", f.problem}});
    return {{"file", r.file.string()}, {"kind", binary::kind_name(r.kind)}, {"size", r.size}, {"ok", r.ok()},
            {"elf_files", r.elf_files}, {"checks", r.checks}, {"findings", findings}};
}
}  // namespace

void register_check(CLI::App& app, Cli& cli) {
    auto a = std::make_shared<CheckArgs>();
    auto* sub = app.add_subcommand("check", "Check built binaries as PyTorch's release tooling does "
                                            "(links, RPATHs, ISA level, C++11 ABI, wheel RECORD; the libtorch consumer with --consumer). "
                                            "Nothing from the files runs: a conda package is installed with its link scripts off");
    sub->add_option("FILE", a->files, ".conda, .tar.bz2, .whl or libtorch .zip files")->required();
    sub->add_option("-c,--channel", a->channels,
                    "Where a conda package's dependencies come from (default: the channel the file sits in)")
        ->allow_extra_args(false);
    sub->add_option("--system-map", a->system_maps, "Extra system-provider mapping table (YAML; repeatable)");
    sub->add_flag("--consumer,!--no-consumer", a->consumer,
                  "Also build and run the consumer program against libtorch archives. This runs the archive's "
                  "TorchConfig.cmake and libraries: use it only for archives you trust (ones you made); "
                  "off by default");
    sub->add_flag("--offline", a->offline,
                  "Dependencies from the package and repodata caches only; ask no server (also CONDA_OFFLINE=true)");
    sub->add_option("--pkgs-dir", a->pkgs_dir, "Package cache (default: $SPLITFORGE_PKGS_DIR or ~/.cache/splitforge/pkgs)");
    add_json_flag(sub, cli);
    sub->callback([&cli, a] {
        cli.action = [&cli, a] {
            ConsoleReporter reporter(cli.console);
            binary::CheckOptions o;
            // Each resolved now: a missing directory or a bad scheme is the user's input.
            // Only -c: the file's own channel is the default, not .condarc's [condarc-channels-check].
            load_user_config(cli);
            for (const auto& c : a->channels) value_or_throw(env::resolve_channel(c), "--channel");
            for (const auto& c : a->channels) o.channels.emplace_back(c);
            auto map = env::default_system_map();
            for (const auto& f : a->system_maps) value_or_throw(env::extend_system_map_file(map, f));
            binary::use_system_map(o, map);
            o.consumer = a->consumer ? binary::CheckOptions::Consumer::build_and_run : binary::CheckOptions::Consumer::skip;
            o.reporter = &reporter;
            o.pkgs_dir = a->pkgs_dir;
            o.network = a->offline || env::config().is_offline() ? env::Network::offline : env::Network::online;
            nlohmann::json all = nlohmann::json::array();
            std::vector<binary::CheckResult> results;
            std::size_t failed = 0;
            for (const auto& f : a->files) {
                auto r = value_or_throw(binary::check_artifact(f, o));
                if (!r.ok()) ++failed;
                results.push_back(r);
                if (cli.console.json) {
                    all.push_back(result_json(r));
                    continue;
                }
                for (const auto& finding : r.findings) std::cout << "FAIL " << finding.line() << "\n";
                if (r.ok())
                    std::cout << "ok   " << r.file.filename().string() << " (" << binary::kind_name(r.kind) << ", "
                              << r.elf_files << " ELF files; " << str::join(r.checks, ", ") << ")\n";
            }
            nlohmann::json summary = nlohmann::json::array();
            for (const auto& k : binary::summarize(results)) {
                std::string kind(binary::kind_name(k.kind));
                summary.push_back({{"kind", kind}, {"count", k.count}, {"passed", k.passed}, {"size", k.size}});
                if (!cli.console.json)
                    std::cout << fmt::format("{:<9} {:>3} checked, {:>3} passed, {:>9.1f} KiB\n", kind + ":", k.count,
                                             k.passed, k.size / 1024.0);
            }
            if (cli.console.json) cli.console.print_json({{"ok", failed == 0}, {"artifacts", all}, {"summary", summary}});
            std::cout.flush();
            std::cerr << a->files.size() - failed << " passed, " << failed << " failed\n";
            return failed ? static_cast<int>(Exit::failed) : 0;
        };
    });
}

}  // namespace sf::cli
