// splitforge libtorch-archive PKG... [--kind KIND]... [-c CHANNEL]... [--output-folder DIR] [--json]
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include "binary/libtorch.hpp"
#include "cli/commands.hpp"
#include "cli/channel_args.hpp"
#include "env/channel.hpp"
#include "env/provider_map.hpp"
#include "util/strings.hpp"

namespace sf::cli {

namespace {
struct LibtorchArgs {
    std::vector<std::string> packages, channels, kinds;
    std::string output = "build_artifacts/libtorch";
};
}  // namespace

void register_libtorch_archive(CLI::App& app, Cli& cli) {
    auto a = std::make_shared<LibtorchArgs>();
    auto* sub = app.add_subcommand("libtorch-archive",
                                   "Make PyTorch-style libtorch zips from built libtorch (shared kinds) or libtorch-static "
                                   "(static kinds) packages; their link scripts never run");
    sub->add_option("PKG", a->packages, "libtorch-*.conda (or .tar.bz2) files")->required();
    sub->add_option("-c,--channel", a->channels,
                    "Where the run dependencies come from (default: the channel the package sits in)")
        ->allow_extra_args(false);
    sub->add_option("--kind", a->kinds,
                    "shared-with-deps (default), shared-without-deps, static-with-deps or static-without-deps; "
                    "repeat for several")
        ->allow_extra_args(false)
        ->check(CLI::IsMember({"shared-with-deps", "shared-without-deps", "static-with-deps", "static-without-deps"}));
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
            std::vector<binary::LibtorchKind> requested;
            for (const auto& k : a->kinds) requested.push_back(*binary::parse_libtorch_kind(k));
            std::vector<std::pair<std::string, std::vector<binary::LibtorchKind>>> work;
            std::set<binary::LibtorchKind> made_kinds;
            for (const auto& p : a->packages) {
                if (!std::filesystem::exists(p))
                    throw Failure(Error{SourceLoc{p}, "no such package file", "give a built libtorch .conda file"});
                work.emplace_back(p, value_or_throw(binary::kinds_for_package(p, requested)));
                made_kinds.insert(work.back().second.begin(), work.back().second.end());
            }
            for (auto k : requested)
                if (!made_kinds.count(k))
                    throw Failure(Error{SourceLoc{"--kind " + std::string(binary::kind_name(k))},
                                        std::string("no package given makes it: ") +
                                            (binary::is_static(k) ? "static kinds come from libtorch-static" : "shared kinds come from libtorch"),
                                        "add that package, or leave the kind out"});
            for (const auto& [p, kinds] : work)
            for (auto kind : kinds) {
                o.package = p;
                o.kind = kind;
                // Its errors name the package and keep their kind: a package that is
                // not libtorch is an input error (2), a failed patchelf a runtime one (1).
                auto r = value_or_throw(binary::make_libtorch_archive(o));
                if (cli.console.json)
                    made.push_back({{"path", r.path.string()}, {"kind", binary::kind_name(kind)}, {"version", r.version}, {"variant", r.variant},
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
