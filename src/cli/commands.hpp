#pragma once
// One file per subcommand (cmd_<name>.cpp): it declares options and calls
// into a library. Each register_* adds its subcommand and sets `run` in the
// callback; app.cpp lists them all.
#include <functional>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/error.hpp"

namespace sf::cli {

using Action = std::function<int()>;

// Each sets `action` when its subcommand is selected.
void register_render(CLI::App& app, Action& action);
void register_variants(CLI::App& app, Action& action);
void register_package(CLI::App& app, Action& action);
void register_index(CLI::App& app, Action& action);
void register_inspect(CLI::App& app, Action& action);
void register_install(CLI::App& app, Action& action);
void register_cmake_cache(CLI::App& app, Action& action);
void register_build(CLI::App& app, Action& action);
void register_rerender(CLI::App& app, Action& action);
void register_ci_matrix(CLI::App& app, Action& action);
void register_submodules(CLI::App& app, Action& action);
void register_lint(CLI::App& app, Action& action);

// "splitforge: warning: <file:line>: <message>" on stderr, one line each.
void print_warnings(const std::vector<Error>& warnings);

int main(int argc, char** argv);

}  // namespace sf::cli
