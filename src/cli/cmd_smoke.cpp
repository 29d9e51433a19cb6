// splitforge smoke (--channel URL... | --index URL) SPEC... [--script FILE] [--arg A]... [--python PY]
//   [--work-dir DIR] [--pkgs-dir DIR] [--json]
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/channel_args.hpp"
#include "cli/commands.hpp"
#include "env/condarc.hpp"
#include "publish/smoke.hpp"
#include "util/fs.hpp"

namespace sf::cli {

namespace {
struct SmokeArgs {
    std::vector<std::string> channels, specs, script_args;
    std::string index, script, python, work_dir, pkgs_dir;
};

// The script: --script, else the feedstock's recipe/smoke_test.py.
std::filesystem::path smoke_script(const SmokeArgs& a) {
    if (!a.script.empty()) return a.script;
    if (std::filesystem::is_regular_file("recipe/smoke_test.py")) return "recipe/smoke_test.py";
    throw Failure(Error{{}, "no smoke test: no --script, and no recipe/smoke_test.py here",
                        "give --script FILE (the demo's is demo/minitorch/recipe/smoke_test.py)"});
}

publish::SmokeOptions smoke_options(Cli& cli, const SmokeArgs& a) {
    publish::SmokeOptions o;
    o.script = smoke_script(a);
    o.script_args = a.script_args;
    o.specs = a.specs;
    if (!a.index.empty()) {
        o.from = publish::SmokeOptions::From::index;
        o.index_url = a.index;
        o.python = a.python;
        return o;
    }
    o.install.channels = solve_channels(cli, a.channels, true);
    o.install.pkgs_dir = a.pkgs_dir;
    for (const auto& d : env::config().pkgs_dirs) o.install.conda_pkgs_dirs.push_back(d.value);
    if (env::config().is_offline()) o.install.network = env::Network::offline;
    o.install.run_scripts = env::RunScripts::yes;
    o.install.on_warning = [&cli](const std::string& w) { cli.console.warning(w); };
    return o;
}
}  // namespace

void register_smoke(CLI::App& app, Cli& cli) {
    auto a = std::make_shared<SmokeArgs>();
    auto* sub = app.add_subcommand(
        "smoke", "Install what was published into a fresh prefix (conda channel) or venv (pip index) and run the smoke test");
    sub->add_option("SPEC", a->specs, "What to install: match specs (--channel) or pip requirements (--index)")->required();
    auto* ch = sub->add_option("--channel", a->channels, "The conda channel(s) it was published to (URL, file:// or dir)")
                   ->allow_extra_args(false);
    auto* ix = sub->add_option("--index", a->index, "The pip index it was published to (…/simple), installed from with pip");
    ch->excludes(ix);
    sub->add_option("--script", a->script, "The smoke test, run by the installed python (default: recipe/smoke_test.py)");
    sub->add_option("--arg", a->script_args, "An argument for the smoke test (repeat: --arg=--expect-gpu --arg=no)")
        ->allow_extra_args(false);
    sub->add_option("--python", a->python, "With --index: the interpreter the venv is made from (default: python3)");
    sub->add_option("--work-dir", a->work_dir, "Install here (a new directory, kept) instead of a temporary one");
    sub->add_option("--pkgs-dir", a->pkgs_dir, "Package cache (default: $SPLITFORGE_PKGS_DIR or ~/.cache/splitforge/pkgs)");
    add_json_flag(sub, cli);
    sub->callback([&cli, a, ch, ix] {
        cli.action = [&cli, a, ch, ix] {
            if (ch->count() == 0 && ix->count() == 0)
                throw Failure(Error{{}, "smoke: say where it was published", "give --channel URL or --index URL"});
            auto o = smoke_options(cli, *a);
            std::unique_ptr<fs::TempDir> tmp;
            if (a->work_dir.empty()) {
                tmp = std::make_unique<fs::TempDir>("sf-smoke");
                o.work = tmp->path();
            } else {
                o.work = std::filesystem::absolute(a->work_dir);
                if (std::filesystem::exists(o.work))
                    throw Failure(Error{{}, "--work-dir " + a->work_dir + " exists", "give a new directory"});
                std::filesystem::create_directories(o.work);
            }
            // Each error keeps its kind: a missing script or interpreter is
            // input (2), a failed install, venv or pip the job (1).
            auto r = value_or_throw(publish::smoke(o));
            if (cli.console.json)
                cli.console.print_json({{"from", r.from}, {"place", a->work_dir.empty() ? "" : r.place.string()},
                                        {"installed", r.installed}, {"script", o.script.string()},
                                        {"exit_code", r.exit_code}, {"passed", r.exit_code == 0}});
            if (r.exit_code == 0) {
                if (!cli.console.json) std::cout << "smoke test passed: " << o.script.filename().string() << "\n";
                return 0;
            }
            cli.console.error("smoke test " + o.script.string() + " failed (exit " + std::to_string(r.exit_code) + ")");
            return static_cast<int>(Exit::failed);
        };
    });
}

}  // namespace sf::cli
