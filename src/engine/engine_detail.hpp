#pragma once
// Shared between the engine's files: the state of one `splitforge build`.
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/report.hpp"
#include "engine/engine.hpp"
#include "env/provider.hpp"
#include "env/python_env.hpp"
#include "package/meta.hpp"
#include "package/prefix_rules.hpp"
#include "plan/plan.hpp"
#include "process/process.hpp"
#include "script/script_env.hpp"

namespace sf::engine::detail {

namespace stdfs = std::filesystem;

struct StagingManifest;  // staging_archive.hpp

// A Reporter that passes one call at a time to another: the test worker
// (publish.hpp) reports beside the thread that builds.
class SerialReporter : public Reporter {
public:
    explicit SerialReporter(Reporter& to) : to_(to) {}
    void warning(const Error& w) override {
        std::lock_guard l(mu_);
        seen_.push_back(w);
        to_.warning(w);
    }
    void note(std::string_view line) override { std::lock_guard l(mu_); to_.note(line); }
    void progress(std::string_view line) override { std::lock_guard l(mu_); to_.progress(line); }
    void output_line(std::string_view line) override { std::lock_guard l(mu_); to_.output_line(line); }

    // Every warning passed on so far (the build report's, for --json).
    std::vector<Error> warnings() {
        std::lock_guard l(mu_);
        return seen_;
    }

private:
    Reporter& to_;
    std::mutex mu_;
    std::vector<Error> seen_;
};

struct Ctx {
    explicit Ctx(const BuildOptions& o) : opts(o), serial_(reporter_or_default(o.reporter)), reporter(serial_) {}
    const BuildOptions& opts;

private:
    SerialReporter serial_;

public:
    Reporter& reporter;        // opts.reporter (or plain stderr), one call at a time
    std::vector<Error> warnings() { return serial_.warnings(); }  // all `reporter` was told
    stdfs::path output;        // absolute output channel
    stdfs::path work;          // work root
    stdfs::path host_prefix;   // padded, the same for every step
    stdfs::path build_prefix;
    stdfs::path test_prefix;
    stdfs::path pkgs_out;      // packages written here before test + add
    stdfs::path pkgs_cache;    // installer cache
    stdfs::path splitforge;
    process::Env base_env;     // ours, minimal: what tools are looked up in
    env::Interpreters pythons;
    env::SystemMap map;
    std::unique_ptr<env::EnvProvider> provider;
    // The tests' own provider (its own package cache): a finished output's
    // test runs beside the next output's build (publish.hpp).
    std::unique_ptr<env::EnvProvider> test_provider;
    std::vector<stdfs::path> local_channels;  // output first, then -c dirs
    int cpu_count = 2;
    // The packages' timestamp (ms): timestamp::reproducible() of the recipe
    // dir (SOURCE_DATE_EPOCH, else its newest mtime), so rebuilds are byte-identical.
    std::optional<std::int64_t> timestamp_ms;
    BuildReport report;
    const StagingManifest* restoring = nullptr;  // --from-staging: its checked manifest
    bool time_up = false;  // --time-limit stopped a staging script: run nothing more, archive what is done
    // Runtime names a local channel has a real package of (export_runtimes):
    // read once per name, as the channels' repodata may be large. What this
    // build adds later is its own outputs, which export_runtimes checks apart.
    std::map<std::string, bool> channel_runtimes;
    // True the first time `key` is told in this build (host tools, warnings);
    // the test worker tells too, so it is locked.
    bool tell_once(const std::string& key);
    std::optional<std::string> host_gcc_version;  // probed once (engine_output.cpp)

    void progress(const std::string& line) const;  // only with Progress::show
    void notice(const std::string& line) const;    // always: notes, skips, failures
    void on_line(const std::string& line) const;   // script output, indented; only with Verbosity::stream

private:
    std::mutex told_mu_;
    std::set<std::string> told_;  // host tools and their warnings already reported in this build
};

// "<staging label>", plus " py3.12" for a per-Python step.
std::string variant_of(const plan::StagingBuild& b, const plan::Step& step);
// The one place an OutputResult is made (test "-" until a test runs).
OutputResult output_result(std::string dist, std::string name, std::string variant, Status status,
                           std::string detail = {});
OutputResult output_result(const plan::StagingBuild& b, const plan::Step& step, Status status,
                           std::string detail = {});

// One run_export of a staging output's env: the spec and the package that exported it.
struct InheritedExport {
    std::string spec, from;
};

// Where the staging build keeps what build.sh installed (for `files:` outputs).
struct Staging {
    const plan::StagingBuild* build = nullptr;
    render::RecipeFormat format = render::RecipeFormat::meta_yaml;
    stdfs::path recipe_dir;  // absolute
    stdfs::path src_dir;
    std::string source_name;  // name-version of the recipe (prefix maps)
    std::string package_name, package_version;  // the recipe's package: (TOP_PKG_NAME/VERSION)
    stdfs::path staged;  // copy of the top-level build.sh's new files
    std::vector<std::string> staged_files;
    std::map<std::string, std::string> keys;  // variant keys for the staging script
    // A recipe.yaml staging output's run_exports (its envs'), which the
    // outputs inheriting it add to their run requirements.
    std::vector<InheritedExport> run_exports;
    std::vector<std::string> build_env, host_env;  // what its envs held (the staging archive's manifest)
    bool restored = false;  // from a partial staging archive: sources (and build tree) are there
    bool done = false;      // its script ran to the end (or it has none)
};

// What the outputs inheriting a staging output get from its run_exports
// (rattler-build's weak and strong exports; constraints are not inherited).
std::vector<InheritedExport> staging_run_exports(const render::StagingOutput& s, const env::PreparedEnv& build_env,
                                                 const env::PreparedEnv& host_env);

// The environment build tools run in: minimal, plus the few variables that
// locate toolchains and caches (CUDA_HOME, MKLROOT, SOURCE_DATE_EPOCH, ...).
process::Env tool_env();

// The tools the build runs, before anything is fetched (build_tools.cpp):
// the external provider's executable, git for a git source, patch (or git)
// for patches. One line names each one missing (exit 1).
Result<void> check_build_tools(const BuildOptions& opts, const plan::BuildPlan& p, const process::Env& env);

// <work>/build_env_setup.sh: the script's environment as `export` lines
// and a `cd $SRC_DIR`, written before each script runs, so that after a
// failure (with --keep-build/--dirty) `source build_env_setup.sh` enters it.
void write_env_setup(const Ctx& ctx, const script::ScriptContext& sc);
// A failed script's hint, plus how to get into its environment.
std::string dirty_hint(const Ctx& ctx, const std::string& hint);

// A packaged output, not yet tested nor in the channel.
struct BuiltOutput {
    OutputResult result;
    stdfs::path package;  // in pkgs_out
    std::chrono::steady_clock::time_point started;
};

// Builds and packages one output (engine_output.cpp); publish.hpp tests
// and publishes it.
Result<BuiltOutput> build_output(Ctx& ctx, Staging& st, const plan::Step& step);

// about.license_file of one output, for info/licenses/ (license_files.cpp):
// conda-build's generic_copy for meta.yaml (each entry from the source dir,
// else the recipe dir), rattler-build's copy_license_files for recipe.yaml
// (globs over both, the recipe dir winning). A missing entry is an error.
Result<std::vector<package::ExtraFile>> license_files(const Staging& st, const render::RenderedOutput& o,
                                                      std::vector<std::string>& warnings);
// about.license_file's entries as written (a string is one entry).
std::vector<std::string> license_file_entries(const nlohmann::json& about);

// The recipe folder's regular files (relative, sorted; recipe_files.cpp).
// Symlinks are not followed; dirs of `leave_out` inside it (the output and
// work folders) are left out. `hidden`: also dot-files and dot-folders
// (rattler-build's CopyDir::ignore_hidden_files).
std::vector<std::string> recipe_dir_files(const stdfs::path& root, const std::vector<stdfs::path>& leave_out,
                                          bool hidden);

// info/recipe/ of one output (recipe_files.cpp): conda-build's copy_recipe
// for meta.yaml (the recipe's files, its rendering and the variant; an
// output's under parent/), rattler-build's write_recipe_folder for recipe.yaml.
std::vector<package::ExtraFile> recipe_files(const Ctx& ctx, const Staging& st, const render::RenderedOutput& o);

// The Python step of one output's payload (package/python_files.hpp, by
// the recipe's tool: conda-build's or rattler-build's rules), with the
// build's interpreters (python_step.cpp). Returns the payload's files after
// it and sets `link_json` to its info/link.json ("" for none).
Result<std::vector<std::string>> python_step(const Ctx& ctx, const Staging& st, const render::RenderedOutput& o,
                                             const env::PreparedEnv& henv, const stdfs::path& payload,
                                             std::vector<std::string> files, std::string& link_json);

// The test phase of one package file (verify.cpp): "passed" (and why a pip
// check was skipped), or "none"
// when the output has no tests.
Result<std::string> test_package(Ctx& ctx, const plan::Step& step, const stdfs::path& pkg,
                                 const std::string& recipe_dir);

// recipe.yaml's package_contents test of one package (contents_test.cpp):
// "passed", or an error listing what did not match.
Result<std::string> check_contents(const stdfs::path& pkg, const types::Test& t, const types::Platform& pf,
                                   bool noarch_python);

// The variant's python, numpy, perl, lua and r_base (conda-build's defaults
// where it has none).
script::LanguageVersions language_versions(const variant::Variant& v);

// Once per build: which host tool stands in for which requirement (a
// progress line), and a compiler or glibc of another version than the
// variant's (a warning; under --strict the error: [host-compiler-version],
// [host-glibc-version]).
Result<void> tell_host_tools(Ctx& ctx, const env::PreparedEnv& e);

// The script environment of a staging build or output (engine_output.cpp).
// A prefix as conda activates it: its etc/conda/activate.d scripts, each
// with its package (env::activate_scripts).
script::ActivatedPrefix activated(const stdfs::path& prefix, std::string role);

script::ScriptContext script_context(const Ctx& ctx, const Staging& st, const env::PreparedEnv& benv,
                                    const env::PreparedEnv& henv);

// output_files.cpp: conda-build's create_post_scripts, the recipe's link
// scripts (post_build.link_scripts that exist) as bin/.<name>-<kind>.sh
// (0775) in `payload`; returns the paths added.
Result<std::vector<std::string>> add_link_scripts(const stdfs::path& recipe_dir, const render::RenderedOutput& o,
                                                  const stdfs::path& payload);
// build/always_include_files: the host prefix's files the patterns name
// (expand_globs) that `files` lacks, copied into `payload`; patterns that
// match nothing go to `unmatched` (conda-build warns). Returns the paths added.
Result<std::vector<std::string>> add_always_included(const stdfs::path& host_prefix, const render::RenderedOutput& o,
                                                     const std::vector<std::string>& files, const stdfs::path& payload,
                                                     std::vector<std::string>& unmatched);

// The recipe's prefix keys as the packager takes them.
package::PrefixRules prefix_rules(const render::PostBuildKeys& k);

double seconds_since(std::chrono::steady_clock::time_point t);
std::string fmt_seconds(double s);
std::string human_size(std::uintmax_t bytes);  // "81.4 KiB"
// A variable of `env`, or "" when unset.
std::string env_get(const process::Env& env, const std::string& k);
std::string dist_of(const plan::Step& s);
stdfs::path log_path(const Ctx& ctx, const std::string& name);

}  // namespace sf::engine::detail
