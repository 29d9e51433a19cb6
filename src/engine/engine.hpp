#pragma once
// `splitforge build`: render -> probe the host -> plan -> for each staging
// build: fetch the source once, run the top-level build.sh once, then each
// output in order in the same SRC_DIR (host env re-made at the same padded
// prefix path, script, new files = payload), package it, test it in a fresh
// prefix (while the next output builds), and only then add it to the output
// channel. A failing test puts the package in <output>/broken/ and fails the
// build.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/report.hpp"
#include "env/provider.hpp"
#include "package/linkage.hpp"
#include "plan/plan.hpp"
#include "variant/selection.hpp"

namespace sf::engine {

enum class SkipExisting { yes, no };
enum class TestMode { run, skip };
enum class KeepBuild { no, yes };
enum class Verbosity { stream, quiet };  // stream script output to stderr, or only log it
enum class KeepGoing { no, yes };        // after a failed output, build what does not need it
// Progress lines ("==> source", "[2/5] ... built") on stderr, or none (the CLI
// shows them on a terminal only). Warnings, failures and the summary always.
enum class Progress { show, hide };
// --staging-only: each staging build ends in a staging archive, no outputs
// are built (engine/staging_archive.hpp).
enum class StagingOnly { no, yes };

struct BuildOptions {
    std::filesystem::path recipe_dir;
    variant::Selection selection;                               // platform, -m, --variant
    std::filesystem::path output_folder;                        // the local channel
    std::vector<std::string> channels;                          // -c: dirs, file://, http(s) URLs, names
    std::vector<std::filesystem::path> system_maps;             // --system-map
    std::filesystem::path work_dir;                             // empty: <output>/.splitforge-work/<name>-<hash>
    std::filesystem::path source_cache;                         // --source-cache: downloads in <it>/src/<sha256>/;
                                                                // empty: $SPLITFORGE_CACHE's (source::default_source_cache)
    SkipExisting skip_existing = SkipExisting::yes;
    TestMode test = TestMode::run;
    KeepBuild keep = KeepBuild::no;
    KeepGoing keep_going = KeepGoing::no;
    StagingOnly staging_only = StagingOnly::no;
    std::filesystem::path from_staging;                         // --from-staging: restore, do not run, the staging build
                                                                // (a partial archive: run what it had left)
    // --time-limit (with --staging-only): a staging script still running then
    // is stopped, and what it built is kept as a partial staging archive.
    std::optional<std::chrono::steady_clock::time_point> deadline;
    env::ProviderKind provider = env::ProviderKind::system;
    std::string provider_tool;                                  // external tool path (tests: a fake)
    env::StandIns stand_ins = env::StandIns::allowed;           // --no-system: refused
    // The build and test envs' package cache (content-addressed, shared
    // with `install`): empty, env::default_pkgs_dir(). --offline: only what
    // it and the repodata cache hold; no server is asked.
    std::filesystem::path pkgs_dir;
    env::Network network = env::Network::online;
    plan::SkipUnavailable skip_unavailable = plan::SkipUnavailable::no;
    Verbosity verbosity = Verbosity::stream;
    Progress progress = Progress::show;
    int cpu_count = 0;                                          // 0: $CPU_COUNT or the machine's
    int zstd_level = 19;
    // conda-build's --error-overlinking / --error-overdepending: what an
    // output whose recipe sets no build/error_overlinking gets. Off, as in
    // conda-build and conda-forge (a feedstock opts in in conda-forge.yml).
    package::LinkError error_overlinking = package::LinkError::warn;
    package::LinkError error_overdepending = package::LinkError::warn;
    std::filesystem::path splitforge;                           // our binary; empty: /proc/self/exe
    Reporter* reporter = nullptr;                               // warnings, notes, progress, script output;
                                                                // null: plain stderr (default_reporter())
};

enum class Status { built, skipped_existing, skipped_unavailable, failed };
const char* to_string(Status s);

struct OutputResult {
    std::string dist;       // name-version-build
    std::string name;
    std::string variant;    // staging label, plus "py3.12" for per-Python outputs
    Status status = Status::built;
    std::string test;       // "passed", "failed", "skipped", "-"
    std::uintmax_t size = 0;
    double seconds = 0;
    std::filesystem::path package;  // in the channel (or broken/)
    std::string detail;     // why skipped/failed
    std::vector<std::string> rebuilt;  // ninja edges its script ran (from .ninja_log)
    // Where `seconds` went: the recipe's script against what splitforge does
    // around it (bench_megabuild separates the two per extra Python).
    struct Steps {
        double envs = 0;     // build and host environments, staged files restored
        double script = 0;   // the output's script
        double package = 0;  // run_exports, post-processing, linkage checks, writing the .conda
        double test = 0;     // its tests (on the publish thread, overlapping the next output's build)
        double channel = 0;  // adding it to the output channel
    } steps;
};

struct StagingTiming {
    std::string label;
    double source_s = 0, staging_s = 0, outputs_s = 0;
    double archive_s = 0;  // writing (--staging-only) or restoring (--from-staging) its staging archive
    std::vector<std::string> rebuilt;  // ninja edges the top-level build.sh ran
};

struct BuildReport {
    std::vector<OutputResult> outputs;
    std::vector<StagingTiming> stagings;
    std::vector<std::string> exported;  // interpreter packages added to the channel
    std::filesystem::path work_dir;      // when kept
    std::vector<std::filesystem::path> staging_archives;  // --staging-only
    bool partial = false;                // --time-limit stopped a staging build: its archive is .partial
    std::vector<Error> warnings;         // every warning the build reported, in order
    double seconds = 0;
};

// What a build checks before it runs anything (render, host probe, plan).
// Made first, it tells an input error apart from a build that failed.
struct PreparedBuild {
    plan::BuildPlan plan;
    process::Env env;
    env::Interpreters pythons;
    env::SystemMap map;
};
Result<PreparedBuild> prepare_build(const BuildOptions& opts);

// Runs the whole build. On failure the error names file:line or output+step;
// the output folder holds only complete packages and consistent repodata.
// With KeepGoing::yes a failed output is reported as Status::failed and the
// outputs that do not need it are still built.
Result<BuildReport> run_build(const BuildOptions& opts, const PreparedBuild& prepared);
Result<BuildReport> run_build(const BuildOptions& opts);

// The plan only (render + probe + plan), for --dry-run and tests.
Result<plan::BuildPlan> make_build_plan(const BuildOptions& opts);

// `splitforge test PKG`: an existing package's tests (info/test/run_test.sh)
// in a fresh prefix holding the package, its run dependencies and its test
// requirements, from the local channels (the channel the package sits in
// comes first).
struct TestFileOptions {
    std::filesystem::path package;
    std::vector<std::filesystem::path> channels;
    Verbosity verbosity = Verbosity::stream;
    Progress progress = Progress::show;
    KeepBuild keep = KeepBuild::no;
    // The test prefix's link scripts, as in a build's test (`test --no-scripts`: off).
    env::RunScripts run_scripts = env::RunScripts::yes;
    std::filesystem::path pkgs_dir;               // empty: env::default_pkgs_dir()
    env::Network network = env::Network::online;  // --offline
    Reporter* reporter = nullptr;  // progress and the test's output; null: plain stderr
};
struct TestFileReport {
    std::string dist;
    std::string result;  // "passed", "failed" or "none" (the package has no tests)
    std::string detail;  // why it failed
    std::filesystem::path work_dir;  // when kept
};
// An error when the package cannot be read; a failed test is a report.
Result<TestFileReport> test_package_file(const TestFileOptions& opts);

std::string summary_table(const BuildReport& r);
nlohmann::json report_json(const BuildReport& r);

}  // namespace sf::engine
