// conda's activation before a script: the variables conda's activate sets
// for `activate HOST` then `activate --stack BUILD`, the activate.d scripts
// in order with CONDA_PREFIX their own prefix, paths as data, and a failing
// script named.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "process/process.hpp"
#include "script/activation.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

// A prefix with one activate.d script `name`.sh holding `body`.
script::ActivatedPrefix prefix_with(const stdfs::path& prefix, const std::string& role, const std::string& name,
                                    const std::string& body) {
    stdfs::create_directories(prefix / "etc/conda/activate.d");
    stdfs::path s = prefix / "etc/conda/activate.d" / (name + ".sh");
    REQUIRE(fs::write_file_atomic(s, body + "\n"));
    return {prefix, role, {s}, {"pkg-" + role}};
}

process::Outcome run(const script::Activated& a) {
    process::Command c;
    c.argv = a.argv;
    c.env = {{"PATH", "/usr/bin:/bin"}};
    auto r = process::capture(c);
    REQUIRE(r);
    return *r;
}

}  // namespace

TEST_CASE("activation: host then build stacked, as conda activate and activate --stack set them", "[script]") {
    fs::TempDir tmp("sf-act");
    // a quote, a space and a $ in the paths: they travel as arguments, never as shell text
    const stdfs::path host = tmp.path() / "host 'q' $x", build = tmp.path() / "build";
    script::ActivationStack stack = {
        prefix_with(host, "host", "a", "export SEEN=\"${SEEN:+$SEEN,}host:$CONDA_PREFIX:$CONDA_SHLVL\""),
        prefix_with(build, "build", "b", "export SEEN=\"${SEEN:+$SEEN,}build:$CONDA_PREFIX:$CONDA_SHLVL\"")};
    auto a = script::activated_command(stack, tmp.path() / "work", script::After::exec,
                                       {"sh", "-c", "printf '%s\\n' \"$SEEN\" \"$CONDA_PREFIX_1\" \"$CONDA_STACKED_2\" \"$PATH\" \"$CONDA_DEFAULT_ENV\""});
    REQUIRE(a);
    auto r = run(*a);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto lines = str::split_lines(r.out);
    REQUIRE(lines.size() == 5);
    CHECK(lines[0] == "host:" + host.string() + ":1,build:" + build.string() + ":2");
    CHECK(lines[1] == host.string());
    CHECK(lines[2] == "true");
    CHECK(lines[3] == build.string() + "/bin:" + host.string() + "/bin:/usr/bin:/bin");
    CHECK(lines[4] == build.string());
    CHECK(script::activation_result(*a, stack));
}

TEST_CASE("activation: scripts run in sorted order, and a sourced build script sees what they set", "[script]") {
    fs::TempDir tmp("sf-act");
    const stdfs::path p = tmp.path() / "p";
    auto ap = prefix_with(p, "build", "b", "export ORDER=\"${ORDER-}b\"");
    auto second = prefix_with(p, "build", "a", "export ORDER=\"${ORDER-}a\"; NOT_EXPORTED=here");
    ap.scripts = {second.scripts[0], ap.scripts[0]};  // as env::activate_scripts sorts them
    ap.packages = {"pkg-a", "pkg-b"};
    const stdfs::path build_sh = tmp.path() / "build.sh";
    REQUIRE(fs::write_file_atomic(build_sh, "echo \"$ORDER $NOT_EXPORTED $#\"\n"));
    auto a = script::activated_command({ap}, tmp.path() / "work", script::After::source_script, {build_sh.string()});
    REQUIRE(a);
    auto r = run(*a);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "ab here 0\n");  // the same shell, no arguments left over
}

TEST_CASE("activation: a failing script is the [activation-failed] error naming its package and script", "[script]") {
    fs::TempDir tmp("sf-act");
    script::ActivationStack stack = {prefix_with(tmp.path() / "b", "build", "bad", "export X=1\nfalse\nexport X=2")};
    auto a = script::activated_command(stack, tmp.path() / "work", script::After::exec, {"sh", "-c", "echo ran"});
    REQUIRE(a);
    auto r = run(*a);
    CHECK(r.exit_code != 0);
    CHECK(r.out.find("ran") == std::string::npos);
    auto res = script::activation_result(*a, stack);
    REQUIRE_FALSE(res);
    CHECK(res.error().message ==
          "pkg-build: activation script etc/conda/activate.d/bad.sh failed (exit 1) while activating the build prefix "
          "[activation-failed]");
}

TEST_CASE("activation: build_env_setup.sh's text reproduces the activation when sourced", "[script]") {
    fs::TempDir tmp("sf-act");
    const stdfs::path host = tmp.path() / "h o", build = tmp.path() / "b'";
    script::ActivationStack stack = {prefix_with(host, "host", "a", "export SEEN=\"${SEEN:+$SEEN,}host\""),
                                     prefix_with(build, "build", "b", "export SEEN=\"${SEEN:+$SEEN,}build\"")};
    const stdfs::path setup = tmp.path() / "setup.sh";
    REQUIRE(fs::write_file_atomic(setup, script::activation_text(stack)));
    process::Command c;
    c.argv = {"bash", "-c", ". \"$1\"; printf '%s|%s|%s\\n' \"$SEEN\" \"$CONDA_PREFIX\" \"$CONDA_SHLVL\"", "x",
              setup.string()};
    c.env = {{"PATH", "/usr/bin:/bin"}};
    auto r = process::capture(c);
    REQUIRE(r);
    INFO(r->err);
    CHECK(r->out == "host,build|" + build.string() + "|2\n");
}
