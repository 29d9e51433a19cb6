#include "engine/engine.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include "channel/index.hpp"
#include "core/rewrap.hpp"
#include "core/try.hpp"
#include "engine/engine_detail.hpp"
#include "engine/staging_archive.hpp"
#include "engine/interrupt.hpp"
#include "engine/publish.hpp"
#include "engine/python_package.hpp"
#include "engine/work_dir.hpp"
#include "render/render.hpp"
#include "script/capture.hpp"
#include "script/ninja_log.hpp"
#include "env/install.hpp"
#include "script/script_env.hpp"
#include "source/source.hpp"
#include "types/identifiers.hpp"
#include "types/match_spec.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/timestamp.hpp"

namespace sf::engine {

namespace stdfs = std::filesystem;
using detail::Ctx;
using detail::Publisher;
using detail::Staging;
using detail::Tally;

const char* to_string(Status s) {
    switch (s) {
        case Status::built: return "built";
        case Status::skipped_existing: return "skipped (in channel)";
        case Status::skipped_unavailable: return "skipped (unavailable)";
        case Status::failed: return "failed";
    }
    return "?";
}

namespace detail {

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string dist_of(const plan::Step& s) { return s.output.dist(); }

std::string fmt_seconds(double s) { return fmt::format("{:.1f}s", s); }

std::string env_get(const process::Env& env, const std::string& k) {
    auto it = env.find(k);
    return it == env.end() ? "" : it->second;
}

stdfs::path log_path(const Ctx& ctx, const std::string& name) { return ctx.output / "logs" / (name + ".log"); }

std::string dirty_hint(const Ctx& ctx, const std::string& hint) {
    std::string more = ctx.opts.keep == KeepBuild::yes
                           ? "to retry by hand: source " + (ctx.work / "build_env_setup.sh").string()
                           : "rerun with --dirty to keep the work dir and its build_env_setup.sh";
    return hint.empty() ? more : hint + "; " + more;
}

void write_env_setup(const Ctx& ctx, const script::ScriptContext& sc) {
    auto quote = [](const std::string& v) { return "'" + str::replace_all(v, "'", "'\\''") + "'"; };
    std::string text = "# Enter the environment of the last build script: source this file.\n";
    for (const auto& [k, v] : script::script_env(sc)) text += "export " + k + "=" + quote(v) + "\n";
    text += script::activation_text(sc.activate);
    text += "cd " + quote(sc.src_dir.string()) + "\n";
    (void)fs::write_file_atomic(ctx.work / "build_env_setup.sh", text);
}

void Ctx::progress(const std::string& line) const {
    if (opts.progress == Progress::show) reporter.progress(line);
}

void Ctx::notice(const std::string& line) const { reporter.note(line); }

void Ctx::on_line(const std::string& line) const {
    if (opts.verbosity == Verbosity::stream) reporter.output_line("    " + line);
}

bool Ctx::tell_once(const std::string& key) {
    std::lock_guard l(told_mu_);
    return told_.insert(key).second;
}

std::string variant_of(const plan::StagingBuild& b, const plan::Step& step) {
    return b.label + (step.python.empty() ? "" : " py" + step.python);
}

OutputResult output_result(std::string dist, std::string name, std::string variant, Status status,
                           std::string detail) {
    OutputResult r;
    r.dist = std::move(dist);
    r.name = std::move(name);
    r.variant = std::move(variant);
    r.status = status;
    r.test = "-";
    r.detail = std::move(detail);
    return r;
}

OutputResult output_result(const plan::StagingBuild& b, const plan::Step& step, Status status, std::string detail) {
    return output_result(step.output.dist(), step.output.name, variant_of(b, step), status, std::move(detail));
}

}  // namespace detail

namespace {

// conda-build's long host prefix: placeholders up to 255 characters, so that
// binary prefix replacement works for any shorter install prefix.
stdfs::path padded_prefix(const stdfs::path& work) {
    std::string p = (work / "host_env").string();
    while (p.size() < 255) p += "_placehold";
    return p.substr(0, 255);
}

}  // namespace

namespace detail {
process::Env tool_env() {
    process::Env all = process::current_env();
    process::Env e = process::minimal_env();
    for (const char* k : {"CUDA_HOME", "CUDA_PATH", "MKLROOT", "PYENV_ROOT", "SPLITFORGE_CACHE", "SPLITFORGE_PKGS_DIR",
                          "XDG_CACHE_HOME", "SOURCE_DATE_EPOCH"})
        if (auto it = all.find(k); it != all.end()) e.insert(*it);
    // What conda-build passes on to scripts (proxies, CA bundles, LC_ALL, ...).
    for (const auto& k : script::inherited_keys())
        if (auto it = all.find(k); it != all.end()) e.insert(*it);
    if (!e.count("HOME")) e["HOME"] = "/tmp";
    return e;
}
}  // namespace detail

namespace {
using detail::tool_env;

int cpu_count(const BuildOptions& opts) {
    if (opts.cpu_count > 0) return opts.cpu_count;
    if (const char* c = std::getenv("CPU_COUNT"); c && std::atoi(c) > 0) return std::atoi(c);
    unsigned n = std::thread::hardware_concurrency();
    return n ? static_cast<int>(n) : 2;
}

bool in_channel(const Ctx& ctx, const types::Platform& platform, const std::string& dist) {
    std::error_code ec;
    for (const auto& sd : {platform.name(), std::string("noarch")})
        for (const char* ext : {".conda", ".tar.bz2"})
            if (stdfs::exists(ctx.output / sd / (dist + ext), ec)) return true;
    return false;
}

// Requirements of the top level minus the recipe's own outputs.
std::vector<std::string> without_own(const std::vector<types::Dependency>& reqs, const plan::StagingBuild& b) {
    std::set<std::string> own;
    for (const auto& s : b.steps) own.insert(s.output.name);
    std::vector<std::string> out;
    for (const auto& r : reqs)
        if (!own.count(r.name())) out.push_back(r.str());
    return out;
}

// A staging build's work dir, emptied, and its sources fetched into it.
Result<void> prepare_staging(Ctx& ctx, const plan::BuildPlan& p, Staging& st, const stdfs::path& base,
                             const std::vector<types::Source>& sources, StagingTiming& timing) {
    const auto& b = *st.build;
    auto t = std::chrono::steady_clock::now();
    std::error_code ec;
    stdfs::remove_all(base, ec);
    if (ec) return fail_runtime(SourceLoc{base.string()}, p.name + " [" + b.label + "]: cannot empty the staging dir: " + ec.message());
    detail::init_staging(p, st, base);
    source::SourceContext sc;
    sc.work_dir = st.src_dir;
    sc.recipe_dir = st.recipe_dir;
    if (!ctx.opts.source_cache.empty()) sc.cache_dir = ctx.opts.source_cache / "src";
    sc.env = ctx.base_env;
    sc.offline = ctx.opts.network == env::Network::offline;
    sc.on_line = [&ctx](const std::string& l) { ctx.on_line(l); };
    ctx.progress("==> " + p.name + " [" + b.label + "]: source");
    if (auto r = source::fetch_sources(sources, sc); !r)
        return rewrap(r.error(), p.name + " [" + b.label + "]: source: ");
    stdfs::create_directories(st.src_dir, ec);
    if (ec) return fail_runtime(SourceLoc{st.src_dir.string()}, p.name + " [" + b.label + "]: source: " + ec.message());
    timing.source_s += detail::seconds_since(t);
    st.keys = detail::staging_keys(b);
    return {};
}

// What one staging script needs: meta.yaml's build.sh, or one recipe.yaml
// staging output.
struct StagingScript {
    std::string what;  // "staging build", "staging output NAME"
    const render::Requirements* requirements = nullptr;
    std::string python;
    stdfs::path script;  // absolute, or empty with lines
    std::vector<std::string> lines;
    std::map<std::string, std::string> env;
    const render::StagingOutput* output = nullptr;  // recipe.yaml's, for its run_exports
};

// Runs a staging script in its envs; what it installs is kept in st.staged
// for the outputs (and, for a staging output, the run_exports of its envs).
Result<void> run_staging_script(Ctx& ctx, const plan::BuildPlan& p, Staging& st, const StagingScript& s,
                                StagingTiming& timing) {
    const auto& b = *st.build;
    auto t = std::chrono::steady_clock::now();
    const std::string who = p.name + " [" + b.label + "]: " + s.what;
    if (ctx.opts.deadline && t >= *ctx.opts.deadline) {
        ctx.time_up = true;
        ctx.notice("==> " + who + ": not started, the --time-limit has passed; it runs when the partial archive is resumed");
        return {};
    }
    ctx.progress("==> " + who + (s.python.empty() ? "" : " (python " + s.python + ")"));
    env::EnvSpec be{ctx.build_prefix, env::EnvRole::build, without_own(s.requirements->build, b), {}, "", {}};
    auto benv = ctx.provider->create(be);
    // An env that cannot be made is the job's failure, as `install` that
    // cannot solve (exit 1); --strict's stand-in errors keep their kind.
    if (!benv) return fail_runtime({}, who + ": build env: " + benv.error().str());
    if (auto ok = detail::tell_host_tools(ctx, *benv); !ok) return fail_from(ok.error(), {}, who + ": build env: " + ok.error().str());
    env::EnvSpec he{ctx.host_prefix, env::EnvRole::host, without_own(s.requirements->host, b), {}, s.python, {}};
    auto henv = ctx.provider->create(he);
    if (!henv) return fail_runtime({}, who + ": host env: " + henv.error().str());
    if (auto ok = detail::tell_host_tools(ctx, *henv); !ok) return fail_from(ok.error(), {}, who + ": host env: " + ok.error().str());
    if (s.output) st.run_exports = detail::staging_run_exports(*s.output, *benv, *henv);
    st.build_env = detail::env_records(*benv);
    st.host_env = detail::env_records(*henv);
    auto before = script::snapshot(ctx.host_prefix);

    script::ScriptContext sctx = detail::script_context(ctx, st, *benv, *henv);
    sctx.pkg_name = p.name;
    sctx.pkg_version = p.version;
    sctx.pkg_buildnum = b.steps.empty() ? 0 : b.steps.front().output.build_number;
    sctx.script_env = s.env;
    script::ScriptRun run;
    run.script = s.script;
    run.lines = s.lines;
    run.work = st.src_dir.parent_path();
    std::string log = p.name + "-" + p.version + "-" + b.label + "-staging";
    if (s.output) log += "-" + std::to_string(&*s.output - b.stagings.data());
    run.log = detail::log_path(ctx, log);
    run.on_line = [&ctx](const std::string& l) { ctx.on_line(l); };
    auto logs = script::snapshot_ninja_logs(st.src_dir);
    detail::write_env_setup(ctx, sctx);
    std::optional<StopAt> stop;
    if (ctx.opts.deadline) stop.emplace(*ctx.opts.deadline);
    auto r = script::run_script(run, sctx);
    ctx.time_up = stop && stop->fired();
    stop.reset();
    if (ctx.time_up) {
        // Stopped as Ctrl-C stops it: ninja kept what it finished, and
        // the resumed script picks up from there.
        auto done = script::ninja_edges_since(st.src_dir, logs);
        timing.rebuilt.insert(timing.rebuilt.end(), done.begin(), done.end());
        const double secs = detail::seconds_since(t);
        timing.staging_s += secs;
        ctx.notice("==> " + who + ": stopped at the --time-limit after " + detail::fmt_seconds(secs) + ", " +
                   std::to_string(done.size()) + " ninja edges done");
        return {};
    }
    if (!r) {
        if (interrupted()) return fail_runtime({}, "interrupted (Ctrl-C) during the staging build of " + p.name);
        return fail_from(r.error(), r.error().loc, who + ": " + r.error().message, detail::dirty_hint(ctx, r.error().hint));
    }
    auto rebuilt = script::ninja_edges_since(st.src_dir, logs);
    timing.rebuilt.insert(timing.rebuilt.end(), rebuilt.begin(), rebuilt.end());
    st.staged_files = script::new_files(ctx.host_prefix, before);
    if (auto ok = script::copy_files(ctx.host_prefix, st.staged_files, st.staged); !ok) return unexpected(ok.error());
    st.done = true;
    double secs = detail::seconds_since(t);
    timing.staging_s += secs;
    ctx.progress("==> " + who + " done, " + std::to_string(st.staged_files.size()) + " files installed, " +
                 detail::fmt_seconds(secs));
    return {};
}

// meta.yaml's staging build (and recipe.yaml's top level): the sources once,
// then build.sh unless the recipe's one output runs it itself. Restored from
// a partial archive, it keeps its sources and runs only what is not done.
Result<void> run_staging(Ctx& ctx, const plan::BuildPlan& p, Staging& st, StagingTiming& timing) {
    const auto& b = *st.build;
    if (st.done) return {};
    if (!st.restored) SF_TRY_VOID(prepare_staging(ctx, p, st, ctx.work / ("staging-" + b.label), b.sources, timing));
    bool top_is_output = false;
    for (const auto& s : b.steps) top_is_output = top_is_output || s.output.is_staging;
    if (p.build_script.empty() || top_is_output || !b.stagings.empty()) {
        st.done = true;
        return {};
    }
    StagingScript s{"staging build", &b.requirements, b.python, stdfs::absolute(p.recipe_dir) / p.build_script, {}, {}, nullptr};
    return run_staging_script(ctx, p, st, s, timing);
}

// recipe.yaml's staging outputs, each in a work dir of its own (staging-LABEL/N).
Result<void> run_staging_outputs(Ctx& ctx, const plan::BuildPlan& p, std::map<std::string, Staging>& sts,
                                 StagingTiming& timing) {
    const auto& b = *sts.at("").build;
    for (size_t i = 0; i < b.stagings.size(); ++i) {
        const render::StagingOutput& so = b.stagings[i];
        if (ctx.time_up) return {};  // not started: the resumed build runs it
        Staging& st = sts[so.name];
        st.build = &b;
        if (st.done) continue;
        stdfs::path base = ctx.work / ("staging-" + b.label) / std::to_string(i);
        if (!st.restored) SF_TRY_VOID(prepare_staging(ctx, p, st, base, so.sources, timing));
        if (so.script.empty() && so.script_lines.empty()) {  // no script and no build.sh
            st.done = true;
            continue;
        }
        StagingScript s{"staging output " + so.name, &so.requirements, plan::staging_python(so.requirements, b.variant),
                        so.script.empty() ? stdfs::path() : stdfs::absolute(p.recipe_dir) / so.script, so.script_lines,
                        so.script_env, &so};
        SF_TRY_VOID(run_staging_script(ctx, p, st, s, timing));
    }
    return {};
}

using Setup = PreparedBuild;

// The output folder is the user's root; what splitforge makes directly below
// it (the platform subdir, logs/, broken/, .splitforge-work/) must be a real
// directory, never a symlink someone planted there. Checked before anything is
// written or deleted (an input error, exit 2); nothing is created here.
Result<void> check_output_folder(const stdfs::path& output, const types::Platform& platform) {
    std::error_code ec;
    if (output.empty() || !stdfs::is_directory(output, ec)) return {};
    auto root = fs::Dir::open(output);
    if (!root) return unexpected(root.error());
    for (const std::string& name : {platform.name(), std::string("logs"), std::string("broken"), std::string(".splitforge-work")})
        if (root->kind(name) != fs::Kind::missing)
            if (auto sub = root->sub(name); !sub) return unexpected(sub.error());
    return {};
}

Result<Setup> setup(const BuildOptions& opts) {
    const variant::Selection& sel = opts.selection;
    if (sel.platform != sel.build_platform) {
        SourceLoc where = sel.variant_files.empty() ? SourceLoc{} : SourceLoc{sel.variant_files.back().string()};
        return fail(where, "this config targets " + sel.platform.name() + ", but this machine builds " +
                               sel.build_platform.name(),
                    "build it on a " + sel.platform.name() + " machine (cross-building is not supported)");
    }
    if (auto ok = check_output_folder(opts.output_folder, sel.platform); !ok) return unexpected(ok.error());
    auto rr = render::render_dir(opts.recipe_dir, sel);
    if (!rr) return unexpected(rr.error());
    Setup s;
    s.env = tool_env();
    s.map = env::default_system_map();
    for (const auto& f : opts.system_maps)
        if (auto ok = env::extend_system_map_file(s.map, f); !ok) return unexpected(ok.error());
    plan::HostFacts facts;
    if (opts.provider != env::ProviderKind::system) {
        facts = plan::HostFacts::everything();
    } else {
        // Probing interpreters takes a moment (pyenv's shims run a dozen
        // processes each): only when some requirement names python, and only
        // the Pythons a plan with every interpreter at hand would use.
        if (plan::needs_python(*rr)) {
            std::set<std::string> minors;
            if (auto every = plan::make_plan(*rr, plan::HostFacts::everything(), opts.skip_unavailable))
                for (const auto& b : every->builds) {
                    if (!b.python.empty()) minors.insert(b.python);
                    for (const auto& st : b.steps)
                        if (!st.python.empty()) minors.insert(st.python);
                }
            // Nothing named (a bare `python`): every interpreter is a candidate.
            s.pythons = env::discover_pythons(s.env, minors);
        }
        facts.mkl = env::on_host(s.map, "mkl-devel", s.env);
        facts.nvcc = env::on_host(s.map, "cuda-nvcc_" + sel.platform.name(), s.env);
        for (const auto& [minor, py] : s.pythons) facts.pythons.insert(minor);
    }
    auto p = plan::make_plan(*rr, facts, opts.skip_unavailable);
    if (!p) return unexpected(p.error());
    s.plan = std::move(*p);
    return s;
}

}  // namespace

Result<plan::BuildPlan> make_build_plan(const BuildOptions& opts) {
    auto s = setup(opts);
    if (!s) return unexpected(s.error());
    return s->plan;
}

Result<PreparedBuild> prepare_build(const BuildOptions& opts) { return setup(opts); }

Result<BuildReport> run_build(const BuildOptions& opts) {
    auto s = setup(opts);
    if (!s) return unexpected(s.error());
    return run_build(opts, *s);
}

namespace {

// The output channel: absolute, its platform's subdir made, its index current.
Result<void> open_output(Ctx& ctx, const plan::BuildPlan& p) {
    std::error_code ec;
    ctx.output = stdfs::absolute(ctx.opts.output_folder, ec).lexically_normal();
    if (ec) return fail_runtime(SourceLoc{ctx.output.string()}, "cannot create the output folder: " + ec.message());
    // The user's root; the platform subdir below it never through a symlink
    // (and logs/, broken/, .splitforge-work/ checked again).
    if (auto ok = check_output_folder(ctx.output, p.platform); !ok) return unexpected(ok.error());
    auto root = fs::Dir::open(ctx.output, fs::Create::yes);
    if (!root) return unexpected(root.error());
    if (auto sub = root->sub(p.platform.name(), fs::Create::yes); !sub) return unexpected(sub.error());
    if (auto ok = channel::index_channel(ctx.output); !ok) return unexpected(ok.error());
    return {};
}

// The work dir (the recipe's own in <output>/.splitforge-work, claimed, or
// --work-dir) and the prefixes and package folders inside it. The claim
// lives as long as what this returns.
Result<std::optional<WorkDir>> open_work_dir(Ctx& ctx, const plan::BuildPlan& p) {
    const BuildOptions& opts = ctx.opts;
    std::optional<WorkDir> work;
    std::error_code ec;
    // The prefixes live in the work dir and end up in files and scripts.
    stdfs::path base = stdfs::absolute(opts.work_dir.empty() ? ctx.output : opts.work_dir, ec);
    if (auto ok = types::check_prefix(base.string()); !ok)
        return rewrap(ok.error(), "the work dir: ");
    if (ctx.restoring && opts.work_dir.empty()) {
        // Where the staging archive's trees were built (check_restore_dir).
        auto claimed = WorkDir::claim_exact(ctx.restoring->work_dir);
        if (!claimed) return unexpected(claimed.error());
        work.emplace(std::move(*claimed));
        ctx.work = work->path();
    } else if (opts.work_dir.empty()) {
        // The work area lives in the output folder, so what a killed build
        // left behind is found and swept by the next one.
        auto root = fs::Dir::open(ctx.output, fs::Create::yes);
        if (!root) return unexpected(root.error());
        auto area_dir = root->sub(".splitforge-work", fs::Create::yes);  // never through a symlink
        if (!area_dir) return unexpected(area_dir.error());
        stdfs::path area = area_dir->path();
        sweep_work_area(area);
        auto claimed = WorkDir::claim(area, p.name, opts.recipe_dir, opts.selection);
        if (!claimed) return unexpected(claimed.error());
        work.emplace(std::move(*claimed));
        ctx.work = work->path();
        if (work->kind() == WorkKind::unique)
            ctx.notice("note: another build of " + p.name + " is using its work dir in " + area.string() +
                       "; this one works in " + ctx.work.filename().string() + " (its binaries may differ in paths)");
    } else {
        ctx.work = stdfs::absolute(opts.work_dir, ec);
        if (!ec) stdfs::create_directories(ctx.work, ec);
        if (ec) return fail_runtime(SourceLoc{opts.work_dir.string()}, "cannot create the work dir: " + ec.message());
    }
    if (opts.keep == KeepBuild::yes && work) ctx.work = work->keep();
    ctx.host_prefix = padded_prefix(ctx.work);
    ctx.build_prefix = ctx.work / "build_env";
    ctx.test_prefix = ctx.work / "test_env";
    ctx.pkgs_out = ctx.work / "pkgs-out";
    // Content-addressed (<sha256>/), so builds share it with each other and
    // with `install`, and an offline build finds what an earlier one fetched.
    ctx.pkgs_cache = opts.pkgs_dir.empty() ? env::default_pkgs_dir() : stdfs::absolute(opts.pkgs_dir, ec);
    stdfs::create_directories(ctx.pkgs_out, ec);
    if (ec) return fail_runtime(SourceLoc{ctx.pkgs_out.string()}, "cannot create the package folder: " + ec.message());
    return Result<std::optional<WorkDir>>(std::move(work));
}

// What the scripts and tools get: our binary, the tool environment, the
// interpreters and system map the plan was made with, the CPU count and the
// packages' timestamp.
Result<void> set_up_tools(Ctx& ctx, const PreparedBuild& s) {
    const BuildOptions& opts = ctx.opts;
    std::error_code ec;
    ctx.splitforge = opts.splitforge.empty() ? stdfs::read_symlink("/proc/self/exe", ec) : opts.splitforge;
    if (ec) return fail_runtime(SourceLoc{"/proc/self/exe"}, "cannot find the splitforge binary: " + ec.message());
    ctx.base_env = s.env;
    ctx.pythons = s.pythons;
    ctx.map = s.map;
    ctx.cpu_count = cpu_count(opts);
    ctx.timestamp_ms = timestamp::reproducible({opts.recipe_dir}) * 1000;
    return {};
}

// The env provider, over the output channel first, then the -c channels:
// local directories, then URLs and names (env/channel.hpp; the system
// provider fetches them itself, an external one gets them as given).
Result<void> open_provider(Ctx& ctx, const plan::BuildPlan& p) {
    const BuildOptions& opts = ctx.opts;
    ctx.local_channels.push_back(ctx.output);
    std::vector<std::string> urls;
    if (opts.provider == env::ProviderKind::system) {
        auto split = env::split_channels(opts.channels);
        if (!split) return Unexpected<Error>{split.error()};
        for (auto& d : split->local) ctx.local_channels.push_back(std::move(d));
        urls = std::move(split->remote);
    } else {
        for (const auto& c : opts.channels) {
            std::error_code ec;  // an unreadable path is no local channel
            if (stdfs::is_directory(c, ec)) ctx.local_channels.push_back(stdfs::absolute(c));
            else urls.push_back(c);
        }
    }
    env::ProviderContext pc;
    pc.channels = ctx.local_channels;
    pc.channel_urls = urls;
    pc.pkgs_dir = ctx.pkgs_cache;
    pc.platform = p.platform;
    pc.env = ctx.base_env;
    pc.user_config = env::user_tool_config(process::current_env());
    pc.pythons = ctx.pythons;
    pc.map = ctx.map;
    pc.tool = opts.provider_tool;
    pc.on_line = [&ctx](const std::string& l) { ctx.on_line(l); };
    pc.run_scripts = env::RunScripts::yes;  // as conda-build's build and test envs
    pc.stand_ins = opts.stand_ins;
    pc.network = opts.network;
    // The system provider tests beside the next build (publish.hpp), in the
    // same cache (entries appear by rename); an external tool's runs stay
    // one at a time.
    if (opts.provider == env::ProviderKind::system) ctx.test_provider = env::make_provider(opts.provider, pc);
    ctx.provider = env::make_provider(opts.provider, std::move(pc));
    return {};
}

// What the plan left out (unavailable on this host), in the report first.
void report_skipped(Ctx& ctx, const plan::BuildPlan& p) {
    for (const auto& sk : p.skipped) {
        ctx.report.outputs.push_back(detail::output_result(sk.what, "", "", Status::skipped_unavailable, sk.reason));
        ctx.notice("==> skipped " + sk.what + ": " + sk.reason);
    }
}

// The interpreter's pip as a package of the channel (conda adds pip to
// python's depends); a note when the interpreter has none.
Result<void> export_host_pip(Ctx& ctx, const env::Interpreter& py) {
    auto pip = host_pip(py);
    if (!pip) {
        ctx.notice("note: python " + py.version + " (" + py.prefix.string() +
                   ") has no pip of its own to export: stock conda, which adds pip to python's depends, "
                   "will not solve this channel's python");
        return {};
    }
    std::error_code ec;
    if (stdfs::exists(pip_package_in(ctx.output, *pip), ec)) return {};
    auto t = std::chrono::steady_clock::now();
    auto r = export_pip(py, *pip, ctx.output, ctx.work);
    if (!r) return fail_from(r.error(), {}, "pip " + pip->version + ": export as a package: " + r.error().str());
    ctx.report.exported.push_back(r->filename().string());
    ctx.progress("==> pip-" + pip->version + "-" + python_package_build() + ": exported " + pip->site.string() +
                 "/pip into the channel, " + detail::fmt_seconds(detail::seconds_since(t)));
    return {};
}

// The system provider's Pythons (and their pips) become packages of the
// channel, so that tests (and anyone using the channel) can install the
// per-Python outputs.
Result<void> export_pythons(Ctx& ctx, const plan::BuildPlan& p) {
    if (ctx.opts.provider != env::ProviderKind::system) return {};
    std::set<std::string> needed;
    // --no-system: the tests take python from the channels, or fail naming it.
    if (ctx.opts.stand_ins == env::StandIns::refused) return {};
    for (const auto& b : p.builds)
        for (const auto& st : b.steps)
            if (!st.python.empty() && !in_channel(ctx, p.platform, st.output.dist())) needed.insert(st.python);
    for (const auto& minor : needed) {
        if (channels_have(ctx.local_channels, p.platform, "python", minor)) continue;  // the channel's python
        const auto& py = ctx.pythons.at(minor);
        if (python_package_in(ctx.output, p.platform, py).empty()) {
            auto t = std::chrono::steady_clock::now();
            auto r = export_python(py, ctx.output, p.platform, ctx.work);
            if (!r) return fail_from(r.error(), {}, "python " + py.version + ": export as a package: " + r.error().str());
            ctx.report.exported.push_back(r->filename().string());
            ctx.progress("==> python-" + py.version + "-" + python_package_build() + ": exported " +
                         py.prefix.string() + " into the channel, " + detail::fmt_seconds(detail::seconds_since(t)));
        }
        if (auto ok = export_host_pip(ctx, py); !ok) return ok;
    }
    return {};
}

// One output already in the channel (--skip-existing): a row and a line.
void skip_existing_step(Ctx& ctx, const plan::StagingBuild& b, const plan::Step& step, Tally& tally) {
    auto r = detail::output_result(b, step, Status::skipped_existing);
    ctx.progress(tally.next() + r.dist + "  " + r.variant + "  already in the channel, skipped");
    ctx.report.outputs.push_back(std::move(r));
}

// One output of a staging build that ran: built and packaged here, then
// tested and added to the channel by `pub` (beside the next output's build),
// or skipped when already there. A failure ends the build, or with
// --keep-going becomes a failed row.
Result<void> run_step(Ctx& ctx, const plan::BuildPlan& p, Staging& st, const plan::Step& step, Tally& tally,
                      Publisher& pub) {
    const auto& b = *st.build;
    if (interrupted()) return fail_runtime({}, "interrupted (Ctrl-C); the channel holds only complete packages");
    if (ctx.opts.skip_existing == SkipExisting::yes && in_channel(ctx, p.platform, step.output.dist())) {
        if (auto ok = pub.drain(); !ok) return ok;
        skip_existing_step(ctx, b, step, tally);
        return {};
    }
    if (auto ok = pub.before(step); !ok) return ok;
    auto r = detail::build_output(ctx, st, step);
    if (!r) return pub.failed(b, step, r.error());
    return pub.submit(b, step, std::move(*r), st.recipe_dir.string());
}

// A staging build that failed with --keep-going: each of its outputs a failed row.
void fail_staging(Ctx& ctx, const plan::BuildPlan& p, const plan::StagingBuild& b, const Error& e, Tally& tally) {
    for (const auto& step : b.steps) {
        ctx.report.outputs.push_back(detail::output_result(b, step, Status::failed, e.str()));
        ++tally.done;
    }
    ctx.notice("==> " + p.name + " [" + b.label + "]: FAILED, going on (--keep-going): " + e.str());
}

// --staging-only: the staging build that ran, as OUT/staging/<id>.tar.zst.
Result<void> archive_staging(Ctx& ctx, const plan::BuildPlan& p, const plan::StagingBuild& b,
                             const std::map<std::string, Staging>& sts, StagingTiming& timing) {
    auto t = std::chrono::steady_clock::now();
    auto m = detail::make_manifest(ctx, p, b, sts);
    if (!m) return unexpected(m.error());
    auto file = detail::write_staging_archive(ctx, *m, b);
    if (!file) return rewrap(file.error(), p.name + " [" + b.label + "]: staging archive: ");
    std::error_code ec;
    timing.archive_s += detail::seconds_since(t);
    ctx.progress("==> " + p.name + " [" + b.label + "]: staging archive " + file->string() + ", " +
                 detail::human_size(stdfs::file_size(*file, ec)) + ", " + detail::fmt_seconds(timing.archive_s));
    ctx.report.staging_archives.push_back(*file);
    return {};
}

// One staging build: skipped whole when all its outputs are in the channel
// (--skip-existing); else its source and build.sh once, then its outputs.
Result<void> run_staging_build(Ctx& ctx, const plan::BuildPlan& p, const plan::StagingBuild& b, Tally& tally) {
    StagingTiming timing;
    timing.label = b.label;
    const bool staging_only = ctx.opts.staging_only == StagingOnly::yes;
    bool all_there = ctx.opts.skip_existing == SkipExisting::yes && !staging_only;
    for (const auto& step : b.steps) all_there = all_there && in_channel(ctx, p.platform, step.output.dist());
    if (all_there) {
        for (const auto& step : b.steps) skip_existing_step(ctx, b, step, tally);
        ctx.report.stagings.push_back(timing);
        return {};
    }
    // What the engine cannot build yet fails before anything runs.
    for (const auto& so : b.stagings)
        if (!so.unbuildable.empty()) return fail(so.unbuildable);
    for (const auto& step : b.steps)
        if (!step.output.unbuildable.empty()) return fail(step.output.dist() + ": " + step.output.unbuildable);
    // "": the top level's work dir; recipe.yaml's staging outputs by name.
    std::map<std::string, Staging> sts;
    sts[""].build = &b;
    if (ctx.restoring) {
        auto t = std::chrono::steady_clock::now();
        if (auto ok = detail::restore_staging(ctx, p, b, ctx.opts.from_staging, *ctx.restoring, sts); !ok) return ok;
        timing.archive_s += detail::seconds_since(t);
    }
    if (!ctx.restoring || ctx.restoring->partial) {
        auto ran = run_staging(ctx, p, sts[""], timing);
        if (ran) ran = run_staging_outputs(ctx, p, sts, timing);
        if (!ran) {
            if (ctx.opts.keep_going == KeepGoing::no || interrupted()) return unexpected(ran.error());
            fail_staging(ctx, p, b, ran.error(), tally);
            ctx.report.stagings.push_back(timing);
            return {};
        }
    }
    auto t_out = std::chrono::steady_clock::now();
    if (staging_only || ctx.time_up) {
        if (auto ok = archive_staging(ctx, p, b, sts, timing); !ok) return ok;
    } else {
        Publisher pub(ctx, tally);
        for (const auto& step : b.steps) {
            auto st = sts.find(step.output.inherits);
            if (st == sts.end())
                return fail(p.name + ": " + step.output.dist() + " inherits '" + step.output.inherits +
                            "', which is no staging output of this build");
            if (auto ok = run_step(ctx, p, st->second, step, tally, pub); !ok) return ok;
        }
        if (auto ok = pub.drain(); !ok) return ok;
    }
    timing.outputs_s = detail::seconds_since(t_out);
    ctx.report.stagings.push_back(timing);
    if (ctx.opts.keep == KeepBuild::no) {
        std::error_code ec;
        stdfs::path dir = ctx.work / ("staging-" + b.label);
        stdfs::remove_all(dir, ec);
        if (ec) ctx.notice("note: cannot remove " + dir.string() + ": " + ec.message());
    }
    return {};
}

}  // namespace

Result<BuildReport> run_build(const BuildOptions& opts, const PreparedBuild& prepared) {
    InterruptGuard guard;
    auto t_all = std::chrono::steady_clock::now();
    const plan::BuildPlan& p = prepared.plan;
    Ctx ctx(opts);
    report_warnings(ctx.reporter, p.warnings);
    if (auto ok = detail::check_build_tools(opts, p, prepared.env); !ok) return unexpected(ok.error());
    if (opts.deadline && p.builds.size() > 1)
        return fail("--time-limit stops and resumes one staging build; this selection has " +
                        std::to_string(p.builds.size()),
                    "narrow the selection with -m or --variant to one (one CI job each)");
    std::optional<detail::StagingManifest> restoring;
    if (!opts.from_staging.empty()) {
        auto m = detail::manifest_to_restore(opts, p);
        if (!m) return unexpected(m.error());
        restoring = std::move(*m);
        ctx.restoring = &*restoring;
    }
    if (auto ok = open_output(ctx, p); !ok) return unexpected(ok.error());
    auto work = open_work_dir(ctx, p);  // held until the build ends
    if (!work) return unexpected(work.error());
    if (restoring && restoring->host_prefix != ctx.host_prefix.string())
        return fail(SourceLoc{opts.from_staging.string()}, "the archive's host prefix is " + restoring->host_prefix +
                                                               ", this build's " + ctx.host_prefix.string());
    if (auto ok = set_up_tools(ctx, prepared); !ok) return unexpected(ok.error());
    if (auto ok = open_provider(ctx, p); !ok) return unexpected(ok.error());
    report_skipped(ctx, p);
    if (opts.staging_only == StagingOnly::no)
        if (auto ok = export_pythons(ctx, p); !ok) return unexpected(ok.error());
    Tally tally{p.output_count()};
    for (const auto& b : p.builds)
        if (auto ok = run_staging_build(ctx, p, b, tally); !ok) return unexpected(ok.error());
    ctx.report.partial = ctx.time_up;
    if (auto ok = channel::index_channel(ctx.output); !ok) return unexpected(ok.error());
    ctx.report.seconds = detail::seconds_since(t_all);
    ctx.report.warnings = ctx.warnings();
    if (opts.keep == KeepBuild::yes) ctx.report.work_dir = ctx.work;
    return std::move(ctx.report);
}

}  // namespace sf::engine
