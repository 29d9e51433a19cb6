// splitforge inspect PKG [--json]
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "package/inspect.hpp"

namespace sf::cli {

namespace {
struct InspectOpts {
    std::string pkg;
    bool json = false;
};
}  // namespace

void register_inspect(CLI::App& app, Action& action) {
    auto o = std::make_shared<InspectOpts>();
    auto* sub = app.add_subcommand("inspect", "Print a package's metadata and file list");
    sub->add_option("PKG", o->pkg, "A .conda or .tar.bz2 file")->required()->check(CLI::ExistingFile);
    sub->add_flag("--json", o->json, "Print JSON instead of text");
    sub->callback([&action, o] {
        action = [o] {
            auto j = value_or_throw(package::inspect_package(o->pkg));
            if (o->json)
                std::cout << j.dump(2) << "\n";
            else
                std::cout << package::format_inspection(j);
            return 0;
        };
    });
}

}  // namespace sf::cli
