// splitforge inspect PKG [--json]
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "package/inspect.hpp"

namespace sf::cli {

void register_inspect(CLI::App& app, Cli& cli) {
    auto pkg = std::make_shared<std::string>();
    auto* sub = app.add_subcommand("inspect", "Print a package's metadata and file list (only reads it; nothing from it runs)");
    sub->add_option("PKG", *pkg, "A .conda or .tar.bz2 file")->required();
    add_json_flag(sub, cli);
    sub->callback([&cli, pkg] {
        cli.action = [&cli, pkg] {
            std::error_code ec;
            if (!std::filesystem::exists(*pkg, ec))  // there but no regular file: the reader says what it is
                throw Failure(Error{SourceLoc{*pkg}, "no such package file", "give a .conda or .tar.bz2 file"});
            auto j = value_or_throw(package::inspect_package(*pkg));
            if (cli.console.json)
                cli.console.print_json(j);
            else
                std::cout << package::format_inspection(j);
            return 0;
        };
    });
}

}  // namespace sf::cli
