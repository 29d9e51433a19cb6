// splitforge build RECIPE [-m VARIANT.yaml]... [--variant K=V]... [--platform P] [--output-folder DIR]
//   [-c CHANNEL]... [--skip-existing] [--keep-going] [--no-test] [--keep-build|--dirty]
//   [--env-provider P] [--skip-unavailable] [--system-map FILE]... [--no-system] [--source-cache DIR] [--json] [--dry-run]
//   [--[no-]error-overlinking] [--[no-]error-overdepending]
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "cli/channel_args.hpp"
#include "cli/commands.hpp"
#include "env/condarc.hpp"
#include "cli/variant_args.hpp"
#include "engine/engine.hpp"
#include "feedstock/forge_config.hpp"
#include "publish/release.hpp"
#include "publish/upload.hpp"
#include "util/duration.hpp"

namespace sf::cli {

namespace {
struct BuildArgs {
    std::string recipe;
    VariantArgs variants;
    std::vector<std::string> channels, system_maps;
    std::string output = "output";
    std::string provider = "system";
    std::string provider_tool;
    std::string work_dir, source_cache;
    bool skip_existing = false, no_test = false, keep = false, skip_unavailable = false, keep_going = false;
    bool quiet = false, dry_run = false, override_channels = false, no_system = false, offline = false;
    std::string pkgs_dir;
    std::string upload_to;  // --upload-to TARGET: after a build with no failure
    bool staging_only = false;
    std::string from_staging;
    std::string time_limit;  // --time-limit DURATION (with --staging-only)
    std::string nightly;     // --nightly [YYYYMMDD]
    CLI::Option* nightly_opt = nullptr;
    std::string release;     // --release TAG
    bool error_overlinking = false, error_overdepending = false;
    CLI::Option* overlinking_flag = nullptr;  // given on the command line: wins over conda-forge.yml
    CLI::Option* overdepending_flag = nullptr;
    int level = 19;
    bool old_level = false;
};

nlohmann::json plan_json(const plan::BuildPlan& p) {
    nlohmann::json builds = nlohmann::json::array();
    for (const auto& b : p.builds) {
        nlohmann::json steps = nlohmann::json::array();
        for (const auto& s : b.steps)
            steps.push_back({{"dist", s.output.dist()},
                             {"name", s.output.name},
                             {"role", plan::to_string(s.role)},
                             {"python", s.python}});
        builds.push_back({{"label", b.label}, {"python", b.python}, {"outputs", steps}});
    }
    nlohmann::json skipped = nlohmann::json::array();
    for (const auto& s : p.skipped) skipped.push_back({{"what", s.what}, {"reason", s.reason}});
    return {{"name", p.name},
            {"version", p.version},
            {"platform", p.platform.name()},
            {"dry_run", true},
            {"stagings", builds},
            {"skipped", skipped}};
}

// --nightly's date: the one given (YYYYMMDD, a real day), else today in UTC,
// from SOURCE_DATE_EPOCH when it is set, as every timestamp of the build.
std::string nightly_date(const std::string& given) {
    std::tm tm{};
    if (given.empty()) {
        std::time_t now = std::time(nullptr);
        if (const char* sde = std::getenv("SOURCE_DATE_EPOCH"); sde && *sde) now = std::strtoll(sde, nullptr, 10);
        ::gmtime_r(&now, &tm);
        char buf[16];
        std::strftime(buf, sizeof buf, "%Y%m%d", &tm);
        return buf;
    }
    if (given.size() == 8 && given.find_first_not_of("0123456789") == std::string::npos) {
        // A real day: timegm normalizes what is not one (month 13, Feb 30),
        // so the day read back differs from the one written.
        const int year = std::stoi(given.substr(0, 4)), month = std::stoi(given.substr(4, 2)),
                  day = std::stoi(given.substr(6, 2));
        tm.tm_year = year - 1900, tm.tm_mon = month - 1, tm.tm_mday = day;
        std::tm back{};
        std::time_t t = ::timegm(&tm);
        ::gmtime_r(&t, &back);
        if (back.tm_year == year - 1900 && back.tm_mon == month - 1 && back.tm_mday == day) return given;
    }
    throw Failure(Error{{}, "--nightly: '" + given + "' is not a date", "write YYYYMMDD, e.g. 20261202, or no value for today"});
}

engine::BuildOptions build_options(const BuildArgs& a, const Console& console) {
    engine::BuildOptions o;
    o.recipe_dir = checked_recipe_dir(a.recipe);
    o.selection = a.variants.selection();
    if (a.nightly_opt && a.nightly_opt->count() > 0) o.selection.nightly = nightly_date(a.nightly);
    o.output_folder = a.output;
    o.channels = a.channels;
    for (const auto& f : a.system_maps) o.system_maps.emplace_back(f);
    o.work_dir = a.work_dir;
    o.staging_only = a.staging_only ? engine::StagingOnly::yes : engine::StagingOnly::no;
    if (!a.from_staging.empty()) o.from_staging = std::filesystem::absolute(a.from_staging);
    if (!a.time_limit.empty()) {
        // From (about) our start: the job's limit counts from there, and the archive
        // still has to be written and uploaded after it.
        auto d = util::parse_duration(a.time_limit);
        if (!d || d->count() <= 0)
            throw Failure(Error{{}, "--time-limit: '" + a.time_limit + "' is not a duration",
                                "write hours, minutes and seconds, e.g. 5h30m, 90m or 45s"});
        o.deadline = std::chrono::steady_clock::now() + *d;
    }
    if (!a.source_cache.empty()) o.source_cache = std::filesystem::absolute(a.source_cache);
    o.skip_existing = a.skip_existing ? engine::SkipExisting::yes : engine::SkipExisting::no;
    o.test = a.no_test ? engine::TestMode::skip : engine::TestMode::run;
    o.keep = a.keep ? engine::KeepBuild::yes : engine::KeepBuild::no;
    o.keep_going = a.keep_going ? engine::KeepGoing::yes : engine::KeepGoing::no;
    o.provider = value_or_throw(env::parse_provider(a.provider), "--env-provider");
    o.provider_tool = a.provider_tool;
    o.stand_ins = a.no_system ? env::StandIns::refused : env::StandIns::allowed;
    o.pkgs_dir = a.pkgs_dir;
    o.network = a.offline || env::config().is_offline() ? env::Network::offline : env::Network::online;
    if (o.network == env::Network::offline && o.provider != env::ProviderKind::system)
        throw Failure(Error{{}, "--offline: only the system provider reads its caches alone",
                            "drop --env-provider, or give the external tool its own offline setting"});
    o.skip_unavailable = a.skip_unavailable ? plan::SkipUnavailable::yes : plan::SkipUnavailable::no;
    o.verbosity = a.quiet ? engine::Verbosity::quiet : engine::Verbosity::stream;
    o.progress = console.progress ? engine::Progress::show : engine::Progress::hide;
    o.zstd_level = a.level;
    // A conda-forge feedstock's conda-forge.yml (FEEDSTOCK/recipe/..) sets
    // conda_build.error_overlinking for conda-build through .condarc
    // (conda-forge-ci-setup); the command line overrides it, the recipe's
    // build/error_overlinking both. Default off, as conda-smithy's schema.
    std::map<std::string, std::string> forge;
    auto recipe_dir = std::filesystem::absolute(o.recipe_dir).lexically_normal();
    if (!recipe_dir.has_filename()) recipe_dir = recipe_dir.parent_path();  // "recipe/"
    const auto feedstock = recipe_dir.parent_path();
    if (std::filesystem::is_regular_file(feedstock / "conda-forge.yml"))
        forge = value_or_throw(feedstock::read_forge_config(feedstock)).conda_build;
    auto level = [&](bool flag, const CLI::Option* given, const char* key) {
        bool on = flag;
        if (!(given && given->count() > 0))
            if (auto it = forge.find(key); it != forge.end()) on = it->second == "true" || it->second == "True";
        return on ? package::LinkError::error : package::LinkError::warn;
    };
    o.error_overlinking = level(a.error_overlinking, a.overlinking_flag, "error_overlinking");
    o.error_overdepending = level(a.error_overdepending, a.overdepending_flag, "error_overdepending");
    return o;
}

// --release TAG names the version the recipe builds (PyTorch's tag rule: no
// v, nothing from the first '-'); the recipe's version is not rewritten, as
// its sources are that version's.
void check_release(const BuildArgs& a, const plan::BuildPlan& p) {
    if (a.release.empty()) return;
    auto r = value_or_throw(publish::parse_release_tag(a.release));
    if (r.version != p.version)
        throw Failure(Error{{}, "--release " + r.tag + " is version " + r.version + ", but " + a.recipe +
                                    " builds " + p.version,
                            "give the tag of version " + p.version + ", or set the recipe's version to " + r.version});
}

publish::BuildKind build_kind(const BuildArgs& a) {
    if (!a.release.empty()) return publish::BuildKind::release;
    if (a.nightly_opt && a.nightly_opt->count() > 0) return publish::BuildKind::nightly;
    return publish::BuildKind::plain;
}

// The packages a build left in its channel (built now, or there already).
// anaconda://OWNER with no label: the build's own (nightly, test or main).
Result<publish::UploadReport> upload_built(const engine::BuildReport& report, const std::string& target, publish::BuildKind kind) {
    std::vector<std::filesystem::path> files;
    for (const auto& r : report.outputs)
        if ((r.status == engine::Status::built || r.status == engine::Status::skipped_existing) && !r.package.empty())
            files.push_back(r.package);
    if (files.empty()) return publish::UploadReport{};
    auto opts = upload_options(false, false, false, {});
    opts.label = publish::channel_label(kind);
    return publish::upload(target, files, opts);
}

}  // namespace

void register_build(CLI::App& app, Cli& cli) {
    auto a = std::make_shared<BuildArgs>();
    auto* sub = app.add_subcommand(
        "build", "Build a recipe (meta.yaml or recipe.yaml): staging build once per variant, split outputs, test, add to a local channel");
    sub->add_option("RECIPE", a->recipe, "Recipe directory, or its meta.yaml or recipe.yaml")->required();
    a->variants.add_to(sub);
    add_output_folder(sub, a->output, "The local channel packages go into (default: output)");
    sub->add_option("-c,--channel", a->channels, "Extra channels: dirs, file://, http(s) URLs or names (then .condarc's)");
    add_override_channels_flag(sub, a->override_channels);
    sub->add_flag("--skip-existing,!--no-skip-existing", a->skip_existing,
                  "Skip outputs already in the output channel (default: rebuild them, as conda-build does)");
    sub->add_flag("--keep-going,-k", a->keep_going,
                  "After a failed output, go on with the outputs and variants that do not need it; exit 1 at the end");
    sub->add_flag("--no-test", a->no_test, "Do not run the outputs' tests");
    sub->add_flag("--keep-build,--dirty", a->keep,
                  "Keep the work dir (sources, build tree, prefixes, build_env_setup.sh), also after a failure; "
                  "the next build of the recipe into the same output folder replaces it");
    sub->add_option("--env-provider", a->provider,
                    "system (default, offline), or micromamba|mamba|conda (needs channel access)")
        ->check(one_of({"system", "micromamba", "mamba", "conda"}));
    sub->add_option("--env-provider-exe", a->provider_tool, "The external provider's executable");
    sub->add_flag("--skip-unavailable", a->skip_unavailable,
                  "Skip variants/Pythons this host cannot build (MKL, nvcc, interpreters) instead of failing");
    sub->add_option("--system-map", a->system_maps, "Extra system-provider mapping table (YAML; repeatable)");
    sub->add_flag("--offline", a->offline,
                  "Build and test envs from the package and repodata caches only; ask no server (also "
                  "CONDA_OFFLINE=true, .condarc offline: true)");
    sub->add_option("--pkgs-dir", a->pkgs_dir,
                    "The build and test envs' package cache (default: $SPLITFORGE_PKGS_DIR or ~/.cache/splitforge/pkgs, "
                    "shared with `install`)");
    sub->add_flag("--no-system", a->no_system,
                  "Take every requirement from the channels: one none provides is an error, never a host stand-in");
    sub->add_option("--source-cache", a->source_cache,
                    "Source download cache: files in DIR/src/<sha256>/<file> (default: $SPLITFORGE_CACHE, else "
                    "~/.cache/splitforge); pre-seed it where downloads are impossible");
    auto* staging_only = sub->add_flag("--staging-only", a->staging_only,
                  "Run the sources and staging builds only and write each as <output>/staging/<id>.tar.zst (for --from-staging in another job)");
    sub->add_option("--from-staging", a->from_staging,
                    "Restore a staging archive where it was built and build the outputs from it, without the staging script (with --variant python=X: that Python's)")
        ->check(CLI::ExistingFile);
    a->nightly_opt = sub->add_option("--nightly", a->nightly,
                                     "Build nightly versions: X.Y.Z becomes X.Y.Z.devYYYYMMDD in every package and "
                                     "pin (and so in the wheels and libtorch archives made from them); default: today, UTC")
                         ->expected(0, 1);
    sub->add_option("--release", a->release,
                    "Build a release from tag TAG (v2.6.0-rc3 is version 2.6.0, which must be the recipe's); "
                    "its packages are labelled for the test channel (--json's \"label\")")
        ->excludes(a->nightly_opt);
    sub->add_option("--time-limit", a->time_limit,
                    "With --staging-only: stop the staging build at this time after the start (5h30m, 90m, 45s), "
                    "write <output>/staging/<id>.partial.tar.zst and exit 75; --staging-only --from-staging PARTIAL resumes it")
        ->needs(staging_only);
    sub->add_option("--work-dir", a->work_dir, "Work dir (default: <output>/.splitforge-work/<name>-<hash>, the same path each build)");
    sub->add_option("--compression-level", a->level, "zstd level of the .conda packages (default 19)")
        ->check(CLI::Range(1, 22));
    // The old spelling, still read (with a note).
    sub->add_option_function<int>(
           "--zstd-level", [a](const int& v) { a->level = v, a->old_level = true; }, "")
        ->group("")
        ->check(CLI::Range(1, 22));
    add_json_flag(sub, cli, "Print the summary (or, with --dry-run, the plan) as one JSON document on stdout");
    sub->add_flag("-q,--quiet", a->quiet, "Do not stream the scripts' output (it is still logged)");
    sub->add_flag("--dry-run", a->dry_run, "Print the plan and stop");
    sub->add_option("--upload-to", a->upload_to,
                    "After a build with no failed output, upload its packages as `splitforge upload --to TARGET` does (anaconda://OWNER without a label: nightly, test or main, as --nightly/--release say)");
    a->overlinking_flag = sub->add_flag("--error-overlinking,!--no-error-overlinking", a->error_overlinking,
                  "Fail an output whose files link a library no run dependency provides, unless its recipe "
                  "sets build/error_overlinking (default: warn, as conda-build)");
    a->overdepending_flag = sub->add_flag("--error-overdepending,!--no-error-overdepending", a->error_overdepending,
                  "Fail an output with a library run dependency that no file links, unless its recipe sets "
                  "build/error_overdepending (default: warn)");
    sub->callback([&cli, a] {
        cli.action = [&cli, a] {
            if (a->old_level) cli.console.note("--zstd-level is now spelled --compression-level, as in `package`");
            a->channels = solve_channels(cli, a->channels, a->override_channels, a->output);
            auto o = build_options(*a, cli.console);
            ConsoleReporter reporter(cli.console);
            o.reporter = &reporter;
            // What the user gave is checked here (exit 2). What the build meets
            // later keeps its kind: a bad sha256 or a missing patch file is
            // still input (2), a failed script, test or patch run the job (1).
            auto prepared = value_or_throw(engine::prepare_build(o));
            const auto& p = prepared.plan;
            check_release(*a, p);
            const std::string label = publish::channel_label(build_kind(*a));
            if (a->dry_run) {
                print_warnings(cli.console, p.warnings);
                if (cli.console.json) {
                    auto j = plan_json(p);
                    j["label"] = label;
                    cli.console.print_json(j);
                }
                else
                    std::cout << plan::describe(p);
                return 0;
            }
            auto report = value_or_throw(engine::run_build(o, prepared));
            int failed = 0;
            for (const auto& r : report.outputs) failed += r.status == engine::Status::failed;
            auto json = engine::report_json(report);
            json["label"] = label;
            if (!cli.console.json) std::cerr << "\n" << engine::summary_table(report);
            if (!a->upload_to.empty() && failed == 0) {
                auto up = value_or_throw(upload_built(report, a->upload_to, build_kind(*a)));
                if (cli.console.json) json["upload"] = upload_json(up);
                else print_upload(up, std::cout);
            }
            if (cli.console.json) cli.console.print_json(json);
            if (report.partial) {
                cli.console.note("the staging build stopped at the --time-limit; resume it with --staging-only --from-staging " +
                                 (report.staging_archives.empty() ? std::string("ARCHIVE") : report.staging_archives.back().string()));
                return static_cast<int>(Exit::resume);
            }
            if (failed == 0) return 0;
            cli.console.error(std::to_string(failed) + " output(s) failed (see the table above, and the log)");
            return static_cast<int>(Exit::failed);
        };
    });
}

}  // namespace sf::cli
