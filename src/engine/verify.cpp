// The test phase: a fresh prefix with the package and its run dependencies
// from the local channels, then test/files, imports and commands.
#include <glob.h>

#include <string_view>
#include <system_error>

#include "channel/index.hpp"
#include "core/rewrap.hpp"
#include "core/try.hpp"
#include "engine/engine_detail.hpp"
#include "script/capture.hpp"
#include "types/match_spec.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::engine::detail {

namespace {

// conda-build's test environment (build.py test() of the package file:
// environ.get_dict() for the test prefix, CONDA_BUILD_STATE=TEST, SRC_DIR
// the test dir, the variant its hash_input, target_platform=noarch for a
// noarch package), with the mapped host tools of test/requires on PATH.
// RECIPE_DIR is the recipe dir, where conda-build's is the package's
// info/recipe copy, which our packages do not carry ([test-recipe-dir]).
process::Env test_env(const Ctx& ctx, const plan::Step& step, const std::vector<std::string>& tool_dirs,
                      const stdfs::path& cwd, const std::string& recipe_dir) {
    const auto& o = step.output;
    script::ScriptContext c;
    c.phase = script::Phase::test;
    c.prefix = ctx.test_prefix;
    c.build_prefix = ctx.build_prefix;
    c.src_dir = cwd;
    c.recipe_dir = recipe_dir;
    c.pkg_name = o.name;
    c.pkg_version = o.version;
    c.pkg_buildnum = o.build_number;
    c.pkg_hash = o.hash;
    c.pkg_build_string = o.build_string;
    c.py_ver = step.python;
    c.versions = language_versions(o.variant);
    c.cpu_count = ctx.cpu_count;
    c.target_platform = ctx.opts.selection.platform;
    c.build_platform = ctx.opts.selection.build_platform;
    c.tool_dirs = tool_dirs;
    c.dirty = ctx.opts.keep == KeepBuild::yes;
    c.inherited = ctx.base_env;
    c.home = env_get(ctx.base_env, "HOME");
    c.tmpdir = env_get(ctx.base_env, "TMPDIR");
    for (const auto& [k, v] : o.hash_input.items()) c.variant[k] = v.is_string() ? v.get<std::string>() : v.dump();
    if (o.noarch != types::NoArch::none) c.variant["target_platform"] = "noarch";
    return script::script_env(c);
}

// One test command in the activated test prefix (conda-build's
// conda_test_env_vars.sh: `conda activate TEST`).
Result<void> run_one(const Ctx& ctx, const std::vector<std::string>& argv, const stdfs::path& cwd,
                     const process::Env& env, const stdfs::path& log, const std::string& shown) {
    const script::ActivationStack stack = {activated(ctx.test_prefix, "test")};
    auto act = script::activated_command(stack, ctx.work, script::After::exec, argv);
    if (!act) return unexpected(act.error());
    process::Command cmd;
    cmd.argv = act->argv;
    cmd.cwd = cwd;
    cmd.env = env;
    cmd.masks = {{ctx.test_prefix.string(), "$PREFIX"}};
    cmd.log = log;
    auto r = process::stream(cmd, [&ctx](const std::string& l) { ctx.on_line(l); });
    if (!r) return unexpected(r.error());
    SF_TRY_VOID(script::activation_result(*act, stack));
    if (r->exit_code != 0) return fail_runtime({}, "failed (exit " + std::to_string(r->exit_code) + "): " + shown);
    return {};
}

// `python -m pip check` where the test prefix's Python has pip; false
// (nothing run) where it has none, which the test result then says.
Result<bool> pip_check(const Ctx& ctx, const stdfs::path& python, const stdfs::path& cwd, const process::Env& env,
                       const stdfs::path& log) {
    std::error_code ec;
    if (!stdfs::exists(python, ec))
        return fail_runtime({}, "pip_check: no python in the test prefix (is python a run dependency?)");
    process::Command probe;
    probe.argv = {python.string(), "-c", "import pip"};
    probe.cwd = cwd;
    probe.env = env;
    auto has = process::capture(probe);
    if (!has) return unexpected(has.error());
    if (has->exit_code != 0) return false;
    SF_TRY_VOID(run_one(ctx, {python.string(), "-m", "pip", "check"}, cwd, env, log, "python -m pip check"));
    return true;
}

// Copies `src` to `rel` below the test dir, walking the test dir one
// component at a time: no "..", no symlink (one an earlier entry copied) on
// the way, so nothing lands outside it.
Result<void> copy_test_file(const stdfs::path& src, const stdfs::path& rel, const fs::Dir& cwd, const std::string& f,
                            const std::string& recipe_dir) {
    std::string name = rel.filename().string();
    auto parent = fs::is_plain_name(name) ? cwd.sub(rel.parent_path().string(), fs::Create::yes)
                                          : Result<fs::Dir>(fail("not a file name"));
    if (!parent) {
        Error e = parent.error();  // keeps its kind: a mkdir that failed is the job's
        e.message = "test/files: '" + f + "' matches '" + rel.string() + "', which cannot be copied into the test dir: " +
                    (e.loc.file.empty() ? "" : e.loc.file + ": ") + e.message;
        e.loc = SourceLoc{recipe_dir + "/meta.yaml"};
        e.hint = "name test files by their path inside the recipe, without '..'";
        return Unexpected<Error>{std::move(e)};
    }
    std::error_code ec;
    stdfs::path dst = parent->path() / name;
    return stdfs::is_directory(src, ec) ? fs::copy_tree(src, dst) : fs::copy_file(src, dst);
}

// The package under test alone in an indexed channel, <work>/test-channel
// (made afresh, its platform's subdir and noarch/ indexed): conda-build
// indexes the package into its local channel and searches that first for
// the test env, and an external solver takes a package only from a channel.
Result<stdfs::path> test_channel(const Ctx& ctx, const stdfs::path& pkg) {
    stdfs::path dir = ctx.work / "test-channel";
    std::error_code ec;
    stdfs::remove_all(dir, ec);
    auto root = fs::Dir::open(dir, fs::Create::yes);
    if (!root) return unexpected(root.error());
    if (auto sub = root->sub(ctx.opts.selection.platform.name(), fs::Create::yes); !sub) return unexpected(sub.error());
    if (auto added = channel::add_package(dir, pkg); !added) return rewrap(added.error(), "the test channel: ");
    if (auto ok = channel::index_channel(dir); !ok) return rewrap(ok.error(), "the test channel: ");
    return dir;
}

}  // namespace

namespace {

// One test (meta.yaml's test section, or one recipe.yaml tests: item) in a
// fresh prefix: the package, its run dependencies and the test's own.
Result<std::string> run_test(Ctx& ctx, const plan::Step& step, const stdfs::path& pkg, const std::string& recipe_dir,
                             const types::Test& t) {
    // rattler-build solves the downstream package with this one and runs the
    // downstream package's own tests (a spec it cannot solve: a warning, and
    // the test passes). splitforge runs neither: the result says so.
    if (!t.downstream.empty())
        return "downstream test '" + t.downstream + "' skipped (not run by splitforge) [v1-downstream-test]";
    if (!t.contents.empty())  // a package_contents item is that test alone
        return check_contents(pkg, t, ctx.opts.selection.platform, step.output.noarch == types::NoArch::python);
    if (t.commands.empty() && t.imports.empty() && t.files.empty()) return std::string("none");
    std::error_code ec;
    env::EnvSpec spec{ctx.test_prefix, env::EnvRole::test, types::dependency_strings(t.requires_), {pkg}, step.python, {}};
    if (!t.imports.empty() && std::none_of(t.requires_.begin(), t.requires_.end(),
                                           [](const types::Dependency& d) { return d.name() == "python"; }))
        spec.specs.push_back(step.python.empty() ? "python" : "python " + step.python + ".*");
    // rattler-build installs pip for pip_check; the system provider's test
    // envs hold only what the test names (its Python package carries no
    // site-packages; the pip exported beside it is for stock conda's solves).
    if (t.pip_check && ctx.opts.provider != env::ProviderKind::system) spec.specs.push_back("pip");
    if (ctx.opts.provider != env::ProviderKind::system) {
        auto ch = test_channel(ctx, pkg);
        if (!ch) return fail_runtime({}, "creating the test prefix: " + ch.error().str());
        spec.package_channel = *ch;
    }
    auto prepared = (ctx.test_provider ? *ctx.test_provider : *ctx.provider).create(spec);
    // A test env that cannot be made fails the test, as a build env the build (exit 1).
    if (!prepared) return fail_runtime({}, "creating the test prefix: " + prepared.error().str());

    stdfs::path cwd = ctx.work / "test_tmp";
    stdfs::remove_all(cwd, ec);
    auto cwd_dir = fs::Dir::open(cwd, fs::Create::yes);
    if (!cwd_dir) return unexpected(cwd_dir.error());
    for (const auto& f : t.files) {
        glob_t g{};
        std::string pattern = (stdfs::path(recipe_dir) / f).string();
        int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
        if (rc != 0) {
            globfree(&g);
            return fail(SourceLoc{recipe_dir + "/meta.yaml"}, "test/files: '" + f + "' is not in the recipe");
        }
        for (size_t i = 0; i < g.gl_pathc; ++i) {
            stdfs::path src = g.gl_pathv[i];
            // A pattern with a trailing slash (yaml-cpp's `test/`) matches "test/": its name is the dir's.
            if (!src.has_filename()) src = src.parent_path();
            stdfs::path rel = src.lexically_relative(recipe_dir);
            auto copied = copy_test_file(src, rel, *cwd_dir, f, recipe_dir);
            if (!copied) {
                globfree(&g);
                return rewrap(copied.error(), "test/files: cannot copy '" + rel.string() + "': ");
            }
        }
        globfree(&g);
    }

    const process::Env env = test_env(ctx, step, prepared->path_dirs, cwd, recipe_dir);
    for (const auto& c : t.commands)
        if (c.find("RECIPE_DIR") != std::string::npos &&
            ctx.tell_once("test-recipe-dir:" + step.output.dist()))
            ctx.reporter.warning(Error{SourceLoc{recipe_dir + "/meta.yaml"},
                                       step.output.dist() + ": a test command reads RECIPE_DIR, here the recipe dir; "
                                                            "conda-build's is the package's info/recipe copy "
                                                            "[test-recipe-dir]",
                                       {}});
    stdfs::path log = log_path(ctx, step.output.dist());
    std::error_code ec2;
    stdfs::path python = ctx.test_prefix / "bin/python";
    for (const auto& m : t.imports) {
        if (!stdfs::exists(python, ec2))
            return fail_runtime({}, "imports: no python in the test prefix (is python a run dependency?)");
        if (auto ok = run_one(ctx, {python.string(), "-c", "import " + m}, cwd, env, log, "import " + m); !ok)
            return unexpected(ok.error());
    }
    std::string result = "passed";
    if (t.pip_check) {
        SF_TRY(pip, pip_check(ctx, python, cwd, env, log));
        if (!pip) result = "passed, pip check skipped (no pip in the test prefix)";
    }
    for (const auto& c : t.commands)
        if (auto ok = run_one(ctx, {"bash", "-eo", "pipefail", "-c", c}, cwd, env, log, c); !ok)
            return unexpected(ok.error());
    stdfs::remove_all(ctx.test_prefix, ec);
    stdfs::remove_all(cwd, ec);
    return result;
}

// The results of several test items as one: "none" < "passed" < what an
// item said beyond passing (each once, in order).
std::string joined_result(std::string result, std::string_view r) {
    if (r == "none" || r == result || (r == "passed" && result != "none")) return result;
    if (result == "none" || result == "passed") return std::string(r);
    return result + "; " + std::string(r);
}

}  // namespace

Result<std::string> test_package(Ctx& ctx, const plan::Step& step, const stdfs::path& pkg,
                                 const std::string& recipe_dir) {
    const auto& elements = step.output.test_elements;
    if (elements.empty()) return run_test(ctx, step, pkg, recipe_dir, step.output.test);
    // recipe.yaml: each tests: item in an environment of its own, as rattler-build runs them.
    // "passed" unless an item said more (a skipped pip check or downstream
    // test): then what each said, in order.
    std::string result = "none";
    for (const auto& t : elements) {
        auto said = run_test(ctx, step, pkg, recipe_dir, t);
        if (!said) return Unexpected<Error>{said.error()};
        result = joined_result(std::move(result), *said);
    }
    return result;
}

}  // namespace sf::engine::detail
