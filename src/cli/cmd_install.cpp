// splitforge install --prefix P [-c CHANNEL]... PKG_FILE_OR_SPEC... [--json]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/channel_args.hpp"
#include "cli/commands.hpp"
#include "env/condarc.hpp"
#include "env/channel.hpp"
#include "env/install.hpp"
#include "types/identifiers.hpp"

namespace sf::cli {

namespace {
struct InstallArgs {
    std::string prefix;
    std::vector<std::string> channels;
    std::vector<std::string> requests;
    std::string pkgs_dir;
    std::string platform;
    bool copy = false, offline = false, override_channels = false;
    bool quiet = false;
    bool no_scripts = false;
    bool dry_run = false;
};

std::string megabytes(std::uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(b) / 1e6);
    return buf;
}

// "downloading [#########...........] 3/8 packages, 12.3 MB of 40.1 MB"
std::string download_line(const env::DownloadProgress& p) {
    constexpr int kWidth = 24;
    const double frac = p.bytes_total ? std::min(1.0, static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total))
                                      : (p.files_total ? static_cast<double>(p.files_done) / static_cast<double>(p.files_total) : 1.0);
    const int fill = static_cast<int>(frac * kWidth);
    const bool done = p.files_done == p.files_total;
    return std::string(done ? "downloaded " : "downloading ") + "[" + std::string(fill, '#') +
           std::string(kWidth - fill, '.') + "] " + std::to_string(p.files_done) + "/" + std::to_string(p.files_total) +
           " packages, " + megabytes(p.bytes_done) + (p.bytes_total ? " of " + megabytes(p.bytes_total) : "");
}
}  // namespace

void register_install(CLI::App& app, Cli& cli) {
    auto a = std::make_shared<InstallArgs>();
    auto* sub = app.add_subcommand("install", "Install packages from channels (or package files) into a prefix");
    sub->add_option("-p,--prefix", a->prefix, "The environment prefix (created if missing)")->required();
    sub->add_option("-c,--channel", a->channels, "A channel: URL (https://, http://, file://), local directory or name under the channel alias (repeatable, in priority order)")
        ->allow_extra_args(false);
    add_override_channels_flag(sub, a->override_channels);
    sub->add_option("PKG_FILE_OR_SPEC", a->requests,
                    "Match specs (\"foo >=1.2,<2\", \"foo=1.2=h0_0\") or .conda/.tar.bz2 files")
        ->required();
    sub->add_option("--pkgs-dir", a->pkgs_dir,
                    "Package cache (default: $SPLITFORGE_PKGS_DIR or ~/.cache/splitforge/pkgs)");
    sub->add_option("--platform,--target-platform", a->platform, "Target subdir, e.g. linux-64 (default: this machine)");
    sub->add_flag("--no-scripts", a->no_scripts,
                  "Do not run the packages' pre-link, post-link and pre-unlink scripts, nor compile .pyc files");
    sub->add_flag("--offline", a->offline,
                  "Use only the repodata and packages already in the cache; ask no server (also CONDA_OFFLINE=true, .condarc offline: true)");
    sub->add_flag("--dry-run", a->dry_run,
                  "Solve and print what would be installed, kept and removed; fetch no package and change nothing");
    sub->add_flag("--copy", a->copy, "Copy files instead of hardlinking them from the cache");
    sub->add_flag("-q,--quiet", a->quiet, "Print nothing on success");
    add_json_flag(sub, cli);
    sub->callback([&cli, a] {
        cli.action = [&cli, a] {
            env::InstallOptions opts;
            value_or_throw(types::check_prefix(a->prefix), "--prefix");
            // Each resolved now: a missing directory or a bad scheme is the user's input.
            opts.channels = solve_channels(cli, a->channels, a->override_channels);
            const bool needs_solve = std::any_of(a->requests.begin(), a->requests.end(), [](const std::string& r) {
                return !r.ends_with(".conda") && !r.ends_with(".tar.bz2");
            });
            if (opts.channels.empty() && needs_solve)
                throw Failure(Error{{}, "no channels to solve from: no -c, and no .condarc lists channels",
                                    "give -c CHANNEL, or add `channels:` to ~/.condarc (splitforge config --show)"});
            opts.pkgs_dir = a->pkgs_dir;
            if (a->offline || env::config().is_offline()) opts.network = env::Network::offline;
            for (const auto& d : env::config().pkgs_dirs) opts.conda_pkgs_dirs.push_back(d.value);
            if (!a->platform.empty()) opts.platform = value_or_throw(types::Platform::parse(a->platform), "--platform");
            opts.run_scripts = a->no_scripts ? env::RunScripts::no : env::RunScripts::yes;
            opts.dry_run = a->dry_run;
            opts.link_mode = a->copy ? env::LinkMode::copy : env::LinkMode::hardlink_or_copy;
            opts.on_warning = [&cli](const std::string& w) { cli.console.warning(w); };
            // The downloads: a bar on a terminal, else one line at the end.
            auto seen = std::make_shared<env::DownloadProgress>();
            const bool bar = cli.console.progress && !a->quiet;
            opts.on_download = [seen, bar](const env::DownloadProgress& p) {
                *seen = p;
                if (bar) std::cerr << "\r" << download_line(p) << std::flush;
            };
            // The request is checked; what fails now (solve, fetch, link) is the job.
            auto done = env::install(a->prefix, a->requests, opts);
            if (bar && seen->files_total) std::cerr << "\n";
            if (!bar && !a->quiet && done && seen->files_total)
                std::cerr << "downloaded " << seen->files_total << " packages, " << megabytes(seen->bytes_done) << "\n";
            auto r = job_or_throw(std::move(done));
            if (cli.console.json) {
                cli.console.print_json(
                    {{"prefix", a->prefix}, {"installed", r.linked}, {"removed", r.removed}, {"unchanged", r.unchanged}, {"warnings", r.warnings},
                     {"dry_run", a->dry_run}, {"config", config_json(a->channels, a->override_channels)}});
            } else if (!a->quiet) {
                // A dry run says what would happen, in conda's words.
                const char* rm = a->dry_run ? "would remove  " : "removed   ";
                const char* in = a->dry_run ? "would install " : "installed ";
                for (const auto& d : r.removed) std::cout << rm << d << "\n";
                for (const auto& d : r.linked) std::cout << in << d << "\n";
                for (const auto& d : r.unchanged) std::cout << "unchanged " << d << "\n";
            }
            return 0;
        };
    });
}

}  // namespace sf::cli
