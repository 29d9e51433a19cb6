// splitforge install --prefix P [-c CHANNEL]... PKG_FILE_OR_SPEC...
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "env/install.hpp"

namespace sf::cli {

namespace {
struct InstallArgs {
    std::string prefix;
    std::vector<std::string> channels;
    std::vector<std::string> requests;
    std::string pkgs_dir;
    std::string platform;
    bool copy = false;
    bool quiet = false;
};
}  // namespace

void register_install(CLI::App& app, Action& action) {
    auto a = std::make_shared<InstallArgs>();
    auto* sub = app.add_subcommand("install", "Install packages from local channels (or package files) into a prefix");
    sub->add_option("-p,--prefix", a->prefix, "The environment prefix (created if missing)")->required();
    sub->add_option("-c,--channel", a->channels, "A local channel directory (repeatable, in priority order)")
        ->allow_extra_args(false);
    sub->add_option("PKG_FILE_OR_SPEC", a->requests,
                    "Match specs (\"foo >=1.2,<2\", \"foo=1.2=h0_0\") or .conda/.tar.bz2 files")
        ->required();
    sub->add_option("--pkgs-dir", a->pkgs_dir,
                    "Package cache (default: $SPLITFORGE_PKGS_DIR or ~/.cache/splitforge/pkgs)");
    sub->add_option("--platform", a->platform, "Target subdir, e.g. linux-64 (default: this machine)");
    sub->add_flag("--copy", a->copy, "Copy files instead of hardlinking them from the cache");
    sub->add_flag("-q,--quiet", a->quiet, "Print nothing on success");
    sub->callback([&action, a] {
        action = [a] {
            env::InstallOptions opts;
            for (const auto& c : a->channels) opts.channels.emplace_back(c);
            opts.pkgs_dir = a->pkgs_dir;
            if (!a->platform.empty()) opts.platform = value_or_throw(types::Platform::parse(a->platform), "--platform");
            opts.link_mode = a->copy ? env::LinkMode::copy : env::LinkMode::hardlink_or_copy;
            auto r = value_or_throw(env::install(a->prefix, a->requests, opts));
            if (!a->quiet) {
                for (const auto& d : r.removed) std::cout << "removed   " << d << "\n";
                for (const auto& d : r.linked) std::cout << "installed " << d << "\n";
                for (const auto& d : r.unchanged) std::cout << "unchanged " << d << "\n";
            }
            return 0;
        };
    });
}

}  // namespace sf::cli
