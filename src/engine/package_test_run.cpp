// `splitforge test PKG`: the tests a package carries (info/test/), run in a
// fresh prefix, as `conda build -t` and `rattler-build test` do.
#include <algorithm>
#include <optional>
#include <system_error>

#include <nlohmann/json.hpp>

#include "archive/read.hpp"
#include "engine/engine_detail.hpp"
#include "script/script_env.hpp"
#include "util/fs.hpp"
#include "types/json_fields.hpp"

namespace sf::engine {

namespace stdfs = std::filesystem;

namespace {

// CH for a package at CH/<subdir>/pkg.conda, when CH looks like a channel.
std::optional<stdfs::path> channel_of(const stdfs::path& pkg) {
    std::error_code ec;
    auto subdir = stdfs::absolute(pkg, ec).parent_path();
    const auto& known = types::Platform::known();
    if (std::find(known.begin(), known.end(), subdir.filename().string()) == known.end()) return std::nullopt;
    if (!stdfs::exists(subdir / "repodata.json", ec)) return std::nullopt;
    return subdir.parent_path();
}

// conda-build's test environment for a package file (conda build -t): the
// package's index.json gives PKG_*, the recipe copy in info/recipe is
// RECIPE_DIR; the variant is not in the package, so PY_VER & co. are
// conda-build's defaults.
process::Env test_env(const archive::PackageMetadata& meta, const stdfs::path& prefix, const stdfs::path& cwd,
                      const stdfs::path& unpacked, const std::vector<std::string>& tool_dirs,
                      const process::Env& base) {
    script::ScriptContext c;
    c.phase = script::Phase::test;
    c.prefix = prefix;
    c.src_dir = cwd;
    c.recipe_dir = unpacked / "info/recipe";
    c.pkg_name = meta.index.name;
    c.pkg_version = meta.index.version.str();
    c.pkg_buildnum = static_cast<int>(meta.index.build_number);
    c.pkg_build_string = meta.index.build;
    if (auto p = types::Platform::parse(meta.index.subdir); p && !p->is_noarch()) c.target_platform = *p;
    c.tool_dirs = tool_dirs;
    c.inherited = base;
    c.home = detail::env_get(base, "HOME");
    c.tmpdir = detail::env_get(base, "TMPDIR");
    return script::script_env(c);
}

}  // namespace

Result<TestFileReport> test_package_file(const TestFileOptions& o) {
    auto meta = archive::read_package_metadata(o.package);
    if (!meta) return unexpected(meta.error());
    TestFileReport rep;
    rep.dist = meta->index.dist_name();
    auto script = archive::read_package_member(o.package, "info/test/run_test.sh");
    if (!script) {
        rep.result = "none";
        return rep;
    }
    std::vector<std::string> requires_;
    if (auto deps = archive::read_package_member(o.package, "info/test/test_time_dependencies.json")) {
        if (types::json_too_deep(*deps))
            return fail(SourceLoc{o.package.string() + ":info/test/test_time_dependencies.json"}, "nested too deeply");
        try {
            for (const auto& d : nlohmann::json::parse(*deps)) requires_.push_back(d.get<std::string>());
        } catch (const std::exception& e) {
            return fail(SourceLoc{o.package.string() + ":info/test/test_time_dependencies.json"},
                        std::string("invalid JSON: ") + e.what());
        }
    }

    std::error_code ec;
    fs::TempDir tmp("splitforge-test");
    stdfs::path work = tmp.path();
    if (o.keep == KeepBuild::yes) work = tmp.release();
    rep.work_dir = o.keep == KeepBuild::yes ? work : stdfs::path();

    env::ProviderContext pc;
    if (auto ch = channel_of(o.package)) pc.channels.push_back(*ch);
    std::vector<std::string> given(o.channels.begin(), o.channels.end());
    auto split = env::split_channels(given);
    if (!split) return Unexpected<Error>{split.error()};
    for (auto& d : split->local) pc.channels.push_back(std::move(d));
    pc.channel_urls = std::move(split->remote);
    pc.pkgs_dir = o.pkgs_dir;
    pc.network = o.network;
    const std::string& subdir = meta->index.subdir;
    if (auto p = types::Platform::parse(subdir); p && !p->is_noarch()) pc.platform = *p;
    pc.env = detail::tool_env();
    pc.user_config = env::user_tool_config(process::current_env());
    pc.map = env::default_system_map();
    pc.run_scripts = o.run_scripts;
    Reporter& reporter = reporter_or_default(o.reporter);
    pc.on_line = [&o, &reporter](const std::string& l) {
        if (o.verbosity == Verbosity::stream) reporter.output_line("    " + l);
    };
    auto provider = env::make_provider(env::ProviderKind::system, pc);
    stdfs::path prefix = work / "test_env";
    if (o.progress == Progress::show) reporter.progress("==> " + rep.dist + ": creating the test prefix");
    auto prepared = provider->create(env::EnvSpec{prefix, env::EnvRole::test, requires_, {o.package}, "", {}});
    if (!prepared) {
        rep.result = "failed";
        rep.detail = "creating the test prefix: " + prepared.error().str();
        return rep;
    }
    // The test files (run_test.sh and test/files) are the package's info/test.
    stdfs::path unpacked = work / "pkg";
    if (auto ok = archive::extract_package(o.package, unpacked); !ok) return unexpected(ok.error());
    stdfs::path cwd = unpacked / "info/test";

    // conda-build's conda_test_env_vars.sh activates the test prefix first.
    const script::ActivationStack stack = {detail::activated(prefix, "test")};
    auto act = script::activated_command(stack, work, script::After::exec,
                                         {"bash", "-eo", "pipefail", (cwd / "run_test.sh").string()});
    if (!act) return unexpected(act.error());
    process::Command cmd;
    cmd.argv = act->argv;
    cmd.cwd = cwd;
    cmd.env = test_env(*meta, prefix, cwd, unpacked, prepared->path_dirs, pc.env);
    cmd.masks = {{prefix.string(), "$PREFIX"}};
    cmd.log = work / "test.log";
    if (o.progress == Progress::show) reporter.progress("==> " + rep.dist + ": running info/test/run_test.sh");
    auto r = process::stream(cmd, pc.on_line);
    if (!r) return unexpected(r.error());
    if (auto ok = script::activation_result(*act, stack); !ok) {
        rep.result = "failed";
        rep.detail = ok.error().message;
        return rep;
    }
    if (r->exit_code != 0) {
        rep.result = "failed";
        rep.detail = "info/test/run_test.sh failed (exit " + std::to_string(r->exit_code) + ")";
        return rep;
    }
    rep.result = "passed";
    return rep;
}

}  // namespace sf::engine
