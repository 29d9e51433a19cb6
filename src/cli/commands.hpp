#pragma once
// One file per subcommand (cmd_<name>.cpp): it declares options and calls
// into a library. Each register_* adds its subcommand and, in its callback,
// sets `cli.action`; app.cpp lists them all and maps errors to exit codes
// (cli/common.hpp).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/common.hpp"

namespace sf::publish {
struct UploadOptions;
struct UploadReport;
}  // namespace sf::publish

namespace sf::cli {

void register_render(CLI::App& app, Cli& cli);
void register_variants(CLI::App& app, Cli& cli);
void register_package(CLI::App& app, Cli& cli);
void register_index(CLI::App& app, Cli& cli);
void register_inspect(CLI::App& app, Cli& cli);
void register_install(CLI::App& app, Cli& cli);
void register_cmake_cache(CLI::App& app, Cli& cli);
void register_build(CLI::App& app, Cli& cli);
void register_test(CLI::App& app, Cli& cli);
void register_rerender(CLI::App& app, Cli& cli);
void register_ci_matrix(CLI::App& app, Cli& cli);
void register_submodules(CLI::App& app, Cli& cli);
void register_lint(CLI::App& app, Cli& cli);
void register_check(CLI::App& app, Cli& cli);
void register_libtorch_archive(CLI::App& app, Cli& cli);
void register_wheel(CLI::App& app, Cli& cli);
void register_config(CLI::App& app, Cli& cli);
void register_upload(CLI::App& app, Cli& cli);
void register_smoke(CLI::App& app, Cli& cli);

// `render --output FORMAT`, the old spelling of `--format FORMAT`, rewritten
// in place; true when it was there (the caller prints a note).
bool rewrite_old_render_output(std::vector<std::string>& args);

int main(int argc, char** argv);

// Shared by `upload` and `build --upload-to` (cmd_upload.cpp): the options
// (the process environment for AWS_*), the report as JSON and as lines.
publish::UploadOptions upload_options(bool force, bool dry_run, bool no_index, std::string token);
nlohmann::json upload_json(const publish::UploadReport& r);
void print_upload(const publish::UploadReport& r, std::ostream& out);

}  // namespace sf::cli
