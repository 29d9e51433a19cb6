#include <iostream>

#include "cli/commands.hpp"

namespace sf::cli {

void print_warnings(const std::vector<Error>& warnings) {
    for (const auto& w : warnings) std::cerr << "splitforge: warning: " << w.str() << "\n";
}

int main(int argc, char** argv) {
    CLI::App app{"splitforge: render, build and split conda recipes (megabuilds first-class)"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "splitforge 0.1.0");
    Action action;
    register_render(app, action);
    register_variants(app, action);
    register_build(app, action);
    register_package(app, action);
    register_index(app, action);
    register_install(app, action);
    register_inspect(app, action);
    register_cmake_cache(app, action);
    register_rerender(app, action);
    register_ci_matrix(app, action);
    register_submodules(app, action);
    register_lint(app, action);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // An unknown first word reads better named than as "a subcommand is required".
        if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
            std::cerr << "splitforge: error: unknown command '" << argv[1] << "' (see splitforge --help)\n";
            return 2;
        }
        std::cerr << "splitforge: error: " << e.what() << " (see splitforge --help)\n";
        return 2;
    }
    return action ? action() : 0;
}

}  // namespace sf::cli
