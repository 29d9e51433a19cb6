// splitforge libtorch-archive PKG... [-c CHANNEL]... [--output-folder DIR] [--json]
#include <filesystem>
#include <iostream>
#include <memory>

#include "binary/libtorch.hpp"
#include "cli/commands.hpp"
#include "cli/channel_args.hpp"
#include "env/channel.hpp"
#include "env/provider_map.hpp"
#include "util/strings.hpp"

namespace sf::cli {

namespace {
struct LibtorchArgs {
    std::vector<std::string> packages, channels;
    std::string output = "build_artifacts/libtorch";
};
}  // namespace

void register_libtorch_archive(CLI::App& app, Cli& cli) {
    auto a = std::make_shared<LibtorchArgs>();
    auto* sub = app.add_subcommand("libtorch-archive",
                                   "Make PyTorch-style libtorch zips (with deps) from built libtorch packages (their link scripts never run)");
    sub->add_option("PKG", a->packages, "libtorch-*.conda (or .tar.bz2) files")->required();
    sub->add_option("-c,--channel", a->channels,
                    "Where the run dependencies come from (default: the channel the package sits in)")
        ->allow_extra_args(false);
    add_output_folder(sub, a->output, "Where the archives go (default: build_artifacts/libtorch)", ShortO::yes);
    add_json_flag(sub, cli);
    sub->callback([&cli, a] {
        cli.action = [&cli, a] {
            ConsoleReporter reporter(cli.console);
            binary::LibtorchOptions o;
            // Each resolved now: a missing directory or a bad scheme is the user's input.
            // Only -c: the file's own channel is the default, not .condarc's [condarc-channels-check].
            load_user_config(cli);
            for (const auto& c : a->channels) value_or_throw(env::resolve_channel(c), "--channel");
            for (const auto& c : a->channels) o.channels.emplace_back(c);
            o.output_dir = a->output;
            o.reporter = &reporter;
            for (const auto& [name, e] : env::default_system_map().entries)
                if (e.kind == env::MapKind::ignore) o.host_provided.insert(name);
            nlohmann::json made = nlohmann::json::array();
            for (const auto& p : a->packages) {
                if (!std::filesystem::exists(p))
                    throw Failure(Error{SourceLoc{p}, "no such package file", "give a built libtorch .conda file"});
                o.package = p;
                // Its errors name the package and keep their kind: a package that is
                // not libtorch is an input error (2), a failed patchelf a runtime one (1).
                auto r = value_or_throw(binary::make_libtorch_archive(o));
                if (cli.console.json)
                    made.push_back({{"path", r.path.string()}, {"version", r.version}, {"variant", r.variant},
                                    {"members", r.members}, {"size", r.size}, {"bundled", r.bundled}});
                else
                    std::cout << r.path.string() << "  " << r.members << " files, " << r.size << " bytes"
                              << (r.bundled.empty() ? "" : ", bundled: ") << str::join(r.bundled, ", ") << "\n";
            }
            if (cli.console.json) cli.console.print_json({{"archives", made}});
            return 0;
        };
    });
}

}  // namespace sf::cli
