// splitforge index DIR [--keep N] [--json]: a conda channel, or a folder of wheels (a pip index)
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "channel/index.hpp"
#include "cli/commands.hpp"
#include "publish/pip_index.hpp"
#include "types/platform.hpp"

namespace sf::cli {

namespace {

// A folder of package files with no subdirs (what `package -o` writes) is
// not a channel: say so instead of indexing nothing.
void check_is_channel(const std::string& dir) {
    namespace stdfs = std::filesystem;
    std::error_code ec;
    if (!stdfs::is_directory(dir, ec))
        throw Failure(Error{SourceLoc{dir}, "not a directory", "give a channel directory (with subdirs such as linux-64/)"});
    bool has_subdir = false, has_flat = false;
    for (const auto& e : stdfs::directory_iterator(dir, ec)) {
        std::string n = e.path().filename().string();
        const auto& known = types::Platform::known();
        if (e.is_directory(ec) && std::find(known.begin(), known.end(), n) != known.end()) has_subdir = true;
        if (n.ends_with(".conda") || n.ends_with(".tar.bz2")) has_flat = true;
    }
    if (has_flat && !has_subdir)
        throw Failure(Error{SourceLoc{dir}, "package files directly in the folder: not a channel",
                            "a channel keeps packages in subdirs (linux-64/, noarch/); move them there, or use "
                            "`splitforge package --channel DIR` which does"});
}

}  // namespace

namespace {

int index_wheel_folder(Cli& cli, const std::string& dir, std::optional<int> keep) {
    auto stats = value_or_throw(publish::index_wheels(dir, {keep}));
    for (const auto& w : stats.warnings) cli.console.warning(w);
    if (cli.console.json)
        cli.console.print_json({{"wheel_folder", dir},
                                {"projects", stats.projects},
                                {"wheels", stats.wheels},
                                {"hidden", stats.hidden},
                                {"warnings", stats.warnings}});
    else
        std::cout << "indexed " << stats.wheels << " wheel(s) of " << stats.projects << " project(s) in " << dir
                  << "/simple" << (stats.hidden ? " (" + std::to_string(stats.hidden) + " left off by --keep)" : "") << "\n";
    return 0;
}

}  // namespace

void register_index(CLI::App& app, Cli& cli) {
    auto dir = std::make_shared<std::string>();
    auto keep = std::make_shared<std::optional<int>>();
    auto* sub = app.add_subcommand("index", "Write repodata.json for every subdir of a local channel, or a pip index (simple/) for a folder of wheels");
    sub->add_option("DIR", *dir, "The channel directory, or a folder holding wheels")->required();
    sub->add_option_function<int>("--keep", [keep](const int& n) { *keep = n; },
                                  "Wheels: list only the newest N dev versions of each project (older files stay)")
        ->check(CLI::PositiveNumber);
    add_json_flag(sub, cli);
    sub->callback([&cli, dir, keep] {
        cli.action = [&cli, dir, keep] {
            if (value_or_throw(publish::folder_kind(*dir)) == publish::FolderKind::wheel_folder)
                return index_wheel_folder(cli, *dir, *keep);
            if (keep->has_value())
                throw Failure(Error{SourceLoc{*dir}, "--keep is for a folder of wheels; this is a conda channel", "drop --keep"});
            check_is_channel(*dir);
            auto stats = value_or_throw(channel::index_channel(*dir));
            for (const auto& w : stats.warnings) cli.console.warning(w);
            if (cli.console.json)
                cli.console.print_json({{"channel", *dir},
                                        {"packages", stats.packages},
                                        {"subdirs", stats.subdirs},
                                        {"read", stats.hashed},
                                        {"cached", stats.cached},
                                        {"warnings", stats.warnings}});
            else
                std::cout << "indexed " << stats.packages << " package(s) in " << stats.subdirs << " subdir(s) ("
                          << stats.hashed << " read, " << stats.cached << " cached)\n";
            return 0;
        };
    });
}

}  // namespace sf::cli
