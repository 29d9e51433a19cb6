// splitforge build RECIPE_DIR [-m VARIANT.yaml]... [--variant K=V]... --output-folder DIR
//   [-c CHANNEL]... [--skip-existing|--no-skip-existing] [--no-test] [--keep-build]
//   [--env-provider P] [--skip-unavailable] [--system-map FILE]... [--json] [--dry-run]
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/variant_args.hpp"
#include "engine/engine.hpp"

namespace sf::cli {

namespace {
struct BuildArgs {
    std::string recipe;
    VariantArgs variants;
    std::vector<std::string> channels, system_maps;
    std::string output = "output";
    std::string provider = "system";
    std::string provider_tool;
    std::string work_dir;
    bool skip_existing = true, no_test = false, keep = false, skip_unavailable = false;
    bool json = false, quiet = false, dry_run = false;
    int zstd_level = 19;
};
}  // namespace

void register_build(CLI::App& app, Action& action) {
    auto a = std::make_shared<BuildArgs>();
    auto* sub = app.add_subcommand(
        "build", "Build a recipe: staging build once per variant, split outputs, test, add to a local channel");
    sub->add_option("RECIPE_DIR", a->recipe, "The recipe directory (meta.yaml)")->required();
    a->variants.add_to(sub, VariantArgs::WithPlatform::no);
    sub->add_option("--output-folder", a->output, "The local channel packages go into (default: output)");
    sub->add_option("-c,--channel", a->channels, "Extra channels: local dirs (system) or names/URLs (external)");
    sub->add_flag("--skip-existing,!--no-skip-existing", a->skip_existing,
                  "Skip outputs already in the channel (the default), or rebuild them");
    sub->add_flag("--no-test", a->no_test, "Do not run the outputs' tests");
    sub->add_flag("--keep-build", a->keep, "Keep the work dir (sources, build tree, prefixes)");
    sub->add_option("--env-provider", a->provider,
                    "system (default, offline), or micromamba|mamba|conda (needs channel access)");
    sub->add_option("--env-provider-exe", a->provider_tool, "The external provider's executable");
    sub->add_flag("--skip-unavailable", a->skip_unavailable,
                  "Skip variants/Pythons this host cannot build (MKL, nvcc, interpreters) instead of failing");
    sub->add_option("--system-map", a->system_maps, "Extra system-provider mapping table (YAML; repeatable)");
    sub->add_option("--work-dir", a->work_dir, "Work dir (default: a fresh temp dir)");
    sub->add_option("--zstd-level", a->zstd_level, "zstd level of the .conda packages (default 19)");
    sub->add_flag("--json", a->json, "Print the summary as JSON on stdout");
    sub->add_flag("-q,--quiet", a->quiet, "Do not stream the scripts' output (it is still logged)");
    sub->add_flag("--dry-run", a->dry_run, "Print the plan and stop");
    sub->callback([&action, a] {
        action = [a] {
            engine::BuildOptions o;
            o.recipe_dir = a->recipe;
            o.selection = a->variants.selection();
            o.output_folder = a->output;
            o.channels = a->channels;
            for (const auto& f : a->system_maps) o.system_maps.emplace_back(f);
            o.work_dir = a->work_dir;
            o.skip_existing = a->skip_existing ? engine::SkipExisting::yes : engine::SkipExisting::no;
            o.test = a->no_test ? engine::TestMode::skip : engine::TestMode::run;
            o.keep = a->keep ? engine::KeepBuild::yes : engine::KeepBuild::no;
            o.provider = value_or_throw(env::parse_provider(a->provider), "--env-provider");
            o.provider_tool = a->provider_tool;
            o.skip_unavailable = a->skip_unavailable ? plan::SkipUnavailable::yes : plan::SkipUnavailable::no;
            o.verbosity = a->quiet ? engine::Verbosity::quiet : engine::Verbosity::stream;
            o.zstd_level = a->zstd_level;
            if (a->dry_run) {
                auto p = value_or_throw(engine::make_build_plan(o));
                print_warnings(p.warnings);
                std::cout << plan::describe(p);
                return 0;
            }
            auto report = value_or_throw(engine::run_build(o));
            if (a->json)
                std::cout << engine::report_json(report).dump(2) << "\n";
            else
                std::cerr << "\n" << engine::summary_table(report);
            return 0;
        };
    });
}

}  // namespace sf::cli
