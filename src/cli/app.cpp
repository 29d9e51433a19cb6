#include <algorithm>
#include <iostream>
#include <string_view>

#include "cli/commands.hpp"
#include "core/version.hpp"
#include "engine/interrupt.hpp"
#include "util/strings.hpp"

namespace sf::cli {

namespace {

const char* kFooter =
    "Exit codes: 0 ok; 1 the job failed (a build script, a test, a patch that does not apply, a check:\n"
    "lint errors, rerender --check drift); 2 usage or input error, also when a build meets it (a bad sha256,\n"
    "a missing source or patch file); 128+N a signal ended it (130 Ctrl-C, 143 SIGTERM). With --json, stdout holds one\n"
    "JSON document (a usage error's too); progress and messages go to stderr.";

// The subcommand the parse reached, e.g. `cmake-cache set`.
CLI::App* deepest(CLI::App& app) {
    CLI::App* at = &app;
    while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
    return at;
}

std::string command_path(const CLI::App* sub) {
    std::string path;
    for (const CLI::App* a = sub; a && a->get_parent(); a = a->get_parent())
        path = a->get_name() + (path.empty() ? "" : " " + path);
    return path;
}

std::vector<std::string> subcommand_names(CLI::App* at) {
    std::vector<std::string> names;
    for (const auto* s : at->get_subcommands([](const CLI::App*) { return true; })) names.push_back(s->get_name());
    return names;
}

// Every option spelling `sub` accepts, its parents' included (--color).
std::vector<std::string> option_names(const CLI::App* sub) {
    std::vector<std::string> names;
    for (const CLI::App* a = sub; a; a = a->get_parent())
        for (const auto* o : a->get_options()) {
            for (const auto& l : o->get_lnames()) names.push_back("--" + l);
            for (const auto& s : o->get_snames()) names.push_back("-" + s);
        }
    return names;
}

// A parse error as one line naming the subcommand's own --help, with a
// did-you-mean for a mistyped subcommand or option.
std::string describe_parse_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    CLI::App* sub = deepest(app);
    std::string path = command_path(sub);
    std::string help = " (see `splitforge" + (path.empty() ? std::string() : " " + path) + " --help`)";
    // The words after the subcommand's own name.
    std::vector<const CLI::App*> chain;
    for (const CLI::App* a = sub; a && a->get_parent(); a = a->get_parent()) chain.insert(chain.begin(), a);
    int first = 1;
    for (const auto* a : chain) {
        while (first < argc && a->get_name() != argv[first]) ++first;
        ++first;
    }
    auto subs = subcommand_names(sub);
    if (!subs.empty()) {
        // Expected a subcommand: name the unknown word.
        for (int i = first; i < argc; ++i) {
            std::string w = argv[i];
            if (w.empty() || w[0] == '-') continue;
            std::string near = str::closest(w, subs);
            return "unknown command '" + (path.empty() ? w : path + " " + w) + "'" +
                   (near.empty() ? std::string() : "; did you mean '" + near + "'?") + help;
        }
        if (dynamic_cast<const CLI::RequiredError*>(&e))
            return (path.empty() ? std::string("a command") : "a subcommand of " + path) + " is required" + help;
    }
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
        auto known = option_names(sub);
        std::vector<std::string> unknown, stray;
        for (int i = first; i < argc; ++i) {
            std::string w = argv[i];
            if (w == "--") break;
            if (w.size() < 2 || w[0] != '-') continue;
            std::string name = w.substr(0, w.find('='));
            if (name.size() > 2 && name[1] != '-') name = name.substr(0, 2);  // -ofoo
            if (std::find(known.begin(), known.end(), name) == known.end()) unknown.push_back(name);
        }
        if (!unknown.empty()) {
            std::string near = str::closest(unknown.front(), known);
            return (path.empty() ? std::string() : path + ": ") + "unknown option '" + unknown.front() + "'" +
                   (near.empty() ? std::string() : "; did you mean '" + near + "'?") + help;
        }
        return (path.empty() ? std::string() : path + ": ") + "unexpected argument(s): " + e.what() + help;
    }
    return (path.empty() ? std::string() : path + ": ") + e.what() + help;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"splitforge: render, build and split conda recipes (megabuilds first-class)", "splitforge"};
    app.require_subcommand(1);
    app.fallthrough();
    app.footer(kFooter);
    app.set_version_flag("--version", std::string("splitforge ") + sf::kVersion);
    Cli cli;
    app.add_option("--color", cli.console.color_opt, "Colour on stderr: auto (a terminal, unless NO_COLOR), always, never")
        ->check(one_of({"auto", "always", "never"}));
    app.add_option("--progress", cli.console.progress_opt,
                   "Progress lines on stderr: auto (on a terminal), always (e.g. CI logs), never")
        ->check(one_of({"auto", "always", "never"}));
    // Setting up every command's options costs more than a small render:
    // when argv names a command, only that one is set up (all of them for
    // --help, a typo's did-you-mean, or no command).
    using Register = void (*)(CLI::App&, Cli&);
    static const std::pair<const char*, Register> commands[] = {
        {"render", register_render},     {"variants", register_variants},   {"build", register_build},
        {"test", register_test},         {"package", register_package},     {"index", register_index},
        {"install", register_install},   {"inspect", register_inspect},     {"cmake-cache", register_cmake_cache},
        {"rerender", register_rerender}, {"ci-matrix", register_ci_matrix}, {"submodules", register_submodules},
        {"lint", register_lint},         {"check", register_check},         {"libtorch-archive", register_libtorch_archive},
        {"wheel", register_wheel},       {"config", register_config},       {"upload", register_upload},
        {"smoke", register_smoke}};
    std::string named;
    for (int i = 1; i < argc; ++i) {
        std::string w = argv[i];
        if (w == "--color" || w == "--progress") ++i;  // their value
        else if (w.empty() || w[0] != '-') { named = w; break; }
    }
    bool known = std::any_of(std::begin(commands), std::end(commands), [&](const auto& c) { return named == c.first; });
    for (const auto& [name, reg] : commands)
        if (!known || named == name) reg(app, cli);
    std::vector<std::string> args(argv, argv + argc);
    bool old_output = rewrite_old_render_output(args);
    std::vector<char*> rewritten;
    for (auto& a : args) rewritten.push_back(a.data());
    argv = rewritten.data();
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // The parse stopped before it met --json (a mistyped command): look for it ourselves.
        for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i)
            if (std::string_view(argv[i]) == "--json") cli.console.json = true;
        cli.console.resolve();
        Error err{{}, describe_parse_error(app, e, argc, argv), {}};
        cli.console.error(err.message);
        if (cli.console.json) cli.console.print_json(error_json(err, Exit::usage));
        return static_cast<int>(Exit::usage);
    }
    cli.console.resolve();
    if (old_output)
        cli.console.note("`render --output FORMAT` is now `--format FORMAT`; `--output` alone prints the package "
                         "paths a build would write, as conda-build does");
    if (!cli.action) return 0;
    try {
        int rc = cli.action();
        return engine::interrupted() ? 128 + engine::interrupt_signal() : rc;
    } catch (const RuntimeError& f) {  // JobFailure, and the library's runtime failures
        // Ctrl-C or SIGTERM stopped the job: 130 or 143, as shells and CI runners expect.
        int code = engine::interrupted() ? 128 + engine::interrupt_signal() : static_cast<int>(Exit::failed);
        cli.console.error(f.error().str());
        if (cli.console.json) cli.console.print_json(error_json(f.error(), static_cast<Exit>(code)));
        return code;
    } catch (const Failure& f) {
        cli.console.error(f.error().str());
        if (cli.console.json) cli.console.print_json(error_json(f.error(), Exit::usage));
        return static_cast<int>(Exit::usage);
    }
}

}  // namespace sf::cli
