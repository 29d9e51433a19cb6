// End to end: the feedstock workflows through the real binary and
// build-locally.sh -- rerender/--check, ci-matrix, lint, submodules errors,
// and build-locally.sh --all on a tiny two-config feedstock.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

process::Outcome run(std::vector<std::string> argv, process::Env extra = {}, const stdfs::path& cwd = {}) {
    process::Command c;
    c.argv = std::move(argv);
    c.env = process::minimal_env();
    c.cwd = cwd;
    c.stdin_data = "";  // never a terminal
    for (auto& [k, v] : extra) c.env[k] = v;
    auto r = process::capture(c);
    REQUIRE(r);
    return *r;
}

process::Outcome sf_run(std::vector<std::string> args, const stdfs::path& cwd = {}) {
    args.insert(args.begin(), test::binary().string());
    return run(std::move(args), {}, cwd);
}

stdfs::path tiny() { return test::data_dir() / "feedstock/build-locally"; }

process::Outcome build_locally(std::vector<std::string> args, process::Env env) {
    args.insert(args.begin(), (test::source_dir() / "build-locally.sh").string());
    args.insert(args.begin(), "bash");
    return run(std::move(args), std::move(env));
}

// The error is one line, prefixed, on stderr.
void check_one_line_error(const process::Outcome& o, const std::string& needle) {
    INFO(o.out << o.err);
    CHECK(o.exit_code != 0);
    auto lines = str::split_lines(o.err);
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    CHECK(lines.size() == 1);
    CHECK(o.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("rerender writes variants/, a rerun changes nothing, --check catches staleness") {
    fs::TempDir tmp("sf-it-feed");
    auto v = (tmp.path() / "variants").string();
    auto recipe = (test::data_dir() / "feedstock/rerender/perpython/recipe").string();
    auto w = sf_run({"rerender", recipe, "--variants-dir", v});
    INFO(w.out << w.err);
    REQUIRE(w.exit_code == 0);
    CHECK(w.out.find("9 configs, 9 written") != std::string::npos);
    CHECK(w.out.find("no config for win-64") != std::string::npos);
    auto again = sf_run({"rerender", recipe, "--variants-dir", v});
    CHECK(again.out.find("9 configs, 0 written, 0 removed") != std::string::npos);
    auto ok = sf_run({"rerender", recipe, "--variants-dir", v, "--check"});
    CHECK(ok.exit_code == 0);
    REQUIRE(fs::write_file_atomic(tmp.path() / "variants/linux_aarch64_.yaml", "stale\n"));
    auto bad = sf_run({"rerender", recipe, "--variants-dir", v, "--check"});
    CHECK(bad.exit_code == 1);
    CHECK(bad.out.find("stale:   " + v + "/linux_aarch64_.yaml") != std::string::npos);
    CHECK(test::slurp(tmp.path() / "variants/linux_aarch64_.yaml") == "stale\n");
}

TEST_CASE("the repository's variants/ is what rerender makes from recipe/") {
    // The repository ships recipe/: without it this test has nothing to check, which is a failure.
    REQUIRE(stdfs::exists(test::source_dir() / "recipe/meta.yaml"));
    auto r = sf_run({"rerender", "recipe", "--check"}, test::source_dir());
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
}

TEST_CASE("the repository's .github/workflows is what rerender writes, with staging, from-staging and a gated upload") {
    REQUIRE(stdfs::exists(test::source_dir() / "conda-forge.yml"));
    auto r = sf_run({"rerender", "recipe", "--ci", "github", "--check"}, test::source_dir());
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find(".github/workflows is up to date (1 workflows)") != std::string::npos);
    CHECK(!stdfs::exists(test::source_dir() / ".github/workflows/build.yml"));  // no hand-written one left
    auto text = test::slurp(test::source_dir() / ".github/workflows/splitforge.yml");
    CHECK(text.find("--staging-only") != std::string::npos);
    CHECK(text.find("--from-staging") != std::string::npos);
    CHECK(text.find("    needs:\n      - staging-linux_64_blas_implgeneric") != std::string::npos);
    CHECK(text.find("github.event.repository.default_branch") != std::string::npos);
}

TEST_CASE("rerender --check catches a hand edit of a generated workflow, one line per drifted file") {
    fs::TempDir tmp("sf-it-wf");
    const auto src = test::data_dir() / "feedstock/ci";
    stdfs::copy(src, tmp.path(), stdfs::copy_options::recursive);
    auto w = sf_run({"rerender", "recipe"}, tmp.path());  // conda-forge.yml asks for github_actions
    INFO(w.out << w.err);
    REQUIRE(w.exit_code == 0);
    CHECK(w.out.find("wrote     .github/workflows/splitforge.yml  [linux-64, osx-64, osx-arm64]") != std::string::npos);
    const auto wf = tmp.path() / ".github/workflows/splitforge.yml";
    REQUIRE(fs::write_file_atomic(tmp.path() / ".github/workflows/mine.yml", "name: mine\n"));  // hand-written: not ours
    CHECK(sf_run({"rerender", "recipe", "--check"}, tmp.path()).exit_code == 0);
    auto text = test::slurp(wf);
    auto edited = str::replace_all(text, "timeout-minutes: 900", "timeout-minutes: 901");
    REQUIRE(edited != text);
    REQUIRE(fs::write_file_atomic(wf, edited));
    auto bad = sf_run({"rerender", "recipe", "--check"}, tmp.path());
    INFO(bad.out << bad.err);
    CHECK(bad.exit_code == 1);
    CHECK(bad.out == "stale:   .github/workflows/splitforge.yml  (hand-edited or out of date)\n");
    check_one_line_error(bad, "is stale");
    CHECK(test::slurp(wf) == edited);  // --check changes nothing
    auto fix = sf_run({"rerender", "recipe"}, tmp.path());
    CHECK(fix.exit_code == 0);
    CHECK(test::slurp(wf) == text);
    CHECK(test::slurp(tmp.path() / ".github/workflows/mine.yml") == "name: mine\n");
}

TEST_CASE("ci-matrix --subset pr prints why each job is there") {
    auto r = sf_run({"ci-matrix", "--variants-dir", (test::source_dir() / "variants").string(), "--subset", "pr",
                     "--format", "text"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("    the only job for: ") != std::string::npos);
    CHECK(r.out.find("jobs hold all") != std::string::npos);
    auto g = sf_run({"ci-matrix", "--variants-dir", (test::source_dir() / "variants").string(), "--subset", "pr"});
    auto j = nlohmann::json::parse(g.out, nullptr, false);
    REQUIRE(!j.is_discarded());
    for (const auto& e : j["include"]) CHECK(!e["covers"].empty());
}

TEST_CASE("ci-matrix --format github is valid JSON and matches the golden file") {
    auto r = sf_run({"ci-matrix", "--variants-dir", (test::data_dir() / "feedstock/rerender/perpython/expected").string(),
                     "--format", "github"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE(!j.is_discarded());
    CHECK(j["include"].size() == 9);
    CHECK(r.out == test::slurp(test::data_dir() / "feedstock/ci-matrix/github.json"));
}

TEST_CASE("build-locally.sh --all builds every config once, and a rerun skips them") {
    fs::TempDir tmp("sf-it-feed");
    const stdfs::path art = tmp.path() / "build_artifacts";
    process::Env env = {{"SPLITFORGE", test::binary().string()},
                        {"SF_RECIPE", (tiny() / "recipe").string()},
                        {"SF_VARIANTS_DIR", (tiny() / "variants").string()},
                        {"SF_ARTIFACTS", art.string()},
                        {"CPU_COUNT", "2"}};
    auto first = build_locally({"--all"}, env);
    INFO(first.out << first.err);
    REQUIRE(first.exit_code == 0);
    for (const char* c : {"linux_64_flavourfancy", "linux_64_flavourplain"}) {
        CHECK(stdfs::exists(art / (std::string("build-done-") + c)));
        CHECK(test::slurp(art / (std::string(c) + "-log.txt")).find("built") != std::string::npos);
    }
    CHECK(stdfs::exists(art / "channel/linux-64/tiny-flavour-1.0.0-fancy_0.conda"));
    CHECK(stdfs::exists(art / "channel/linux-64/tiny-flavour-1.0.0-plain_0.conda"));
    CHECK(first.err.find("built 2, skipped 0, failed 0") != std::string::npos);

    auto second = build_locally({"--all"}, env);
    INFO(second.out << second.err);
    CHECK(second.exit_code == 0);
    CHECK(second.err.find("skipped linux_64_flavourfancy") != std::string::npos);
    CHECK(second.err.find("skipped linux_64_flavourplain") != std::string::npos);
    CHECK(second.err.find("built 0, skipped 2, failed 0") != std::string::npos);
}

TEST_CASE("build-locally.sh: one config, --filter, a failing config, CPU_COUNT, no container engine") {
    fs::TempDir tmp("sf-it-feed");
    const stdfs::path art = tmp.path() / "ba", calls = tmp.path() / "calls.txt";
    process::Env env = {{"SPLITFORGE", (tiny() / "fake-splitforge.sh").string()},
                        {"SF_RECIPE", (tiny() / "recipe").string()},
                        {"SF_VARIANTS_DIR", (tiny() / "variants").string()},
                        {"SF_ARTIFACTS", art.string()},
                        {"FAKE_SF_CALLS", calls.string()},
                        {"CPU_COUNT", "3"}};
    SECTION("one config by name (a .yaml path works too)") {
        auto r = build_locally({"variants/linux_64_flavourplain.yaml"}, env);
        INFO(r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK(test::slurp(calls) == "linux_64_flavourplain CPU_COUNT=3\n");
        CHECK(stdfs::exists(art / "build-done-linux_64_flavourplain"));
        CHECK(!stdfs::exists(art / "build-done-linux_64_flavourfancy"));
    }
    SECTION("--filter narrows --all and --list") {
        auto l = build_locally({"--list", "--filter", "*fancy"}, env);
        CHECK(l.out == "linux_64_flavourfancy\n");
        auto r = build_locally({"--all", "--filter", "*fancy"}, env);
        CHECK(r.exit_code == 0);
        CHECK(test::slurp(calls) == "linux_64_flavourfancy CPU_COUNT=3\n");
    }
    SECTION("a failing config gets a log but no done-marker, and the run fails") {
        env["FAKE_SF_FAIL"] = "linux_64_flavourfancy";
        auto r = build_locally({"--all"}, env);
        INFO(r.out << r.err);
        CHECK(r.exit_code != 0);
        CHECK(r.err.find("FAILED linux_64_flavourfancy") != std::string::npos);
        CHECK(test::slurp(art / "linux_64_flavourfancy-log.txt").find("fake failure") != std::string::npos);
        CHECK(!stdfs::exists(art / "build-done-linux_64_flavourfancy"));
        CHECK(stdfs::exists(art / "build-done-linux_64_flavourplain"));
    }
    SECTION("on a terminal: a numbered menu (driven through script(1))") {
        // script(1) is util-linux's (Essential on Debian); where it is missing the
        // whole test case reports SKIPPED (the sections before this one have run).
        if (!stdfs::exists("/usr/bin/script")) test::skip("no /usr/bin/script to fake a terminal with");
        auto cmd = "bash " + (test::source_dir() / "build-locally.sh").string() + " --filter 'linux_64_*'";
        process::Command c;
        c.argv = {"/usr/bin/script", "-qec", cmd, "/dev/null"};
        c.env = process::minimal_env();
        for (auto& [k, v] : env) c.env[k] = v;
        c.stdin_data = "2\n";
        auto r = process::capture(c);
        REQUIRE(r);
        INFO(r->out << r->err);
        CHECK(r->exit_code == 0);
        CHECK(r->out.find(" 1) linux_64_flavourfancy") != std::string::npos);
        CHECK(r->out.find(" 2) linux_64_flavourplain") != std::string::npos);
        CHECK(test::slurp(calls) == "linux_64_flavourplain CPU_COUNT=3\n");
    }
    SECTION("--docker or --podman without a reachable engine is one error line; nothing is built on the host") {
        const stdfs::path bin = tmp.path() / "bin";
        stdfs::create_directories(bin);
        // Engine commands whose `info` fails, as docker's client does without a daemon.
        for (const char* engine : {"docker", "podman"}) {
            std::ofstream(bin / engine) << "#!/bin/sh\necho 'Cannot connect to the daemon' >&2\nexit 1\n";
            stdfs::permissions(bin / engine, stdfs::perms::owner_all);
        }
        env["PATH"] = bin.string() + ":/usr/bin:/bin";
        for (std::string engine : {"docker", "podman"}) {
            auto r = build_locally({"--" + engine, "debian:12", "--all"}, env);
            CHECK(r.exit_code == 1);
            check_one_line_error(r, "--" + engine + ": '" + engine + " info' failed");
        }
        if (!stdfs::exists("/usr/bin/docker") && !stdfs::exists("/bin/docker")) {
            stdfs::remove(bin / "docker");
            auto r = build_locally({"--docker", "debian:12", "--all"}, env);
            check_one_line_error(r, "--docker: no 'docker' command");
        }
        CHECK(!stdfs::exists(calls));
        CHECK(!stdfs::exists(art / "build-done-linux_64_flavourplain"));
    }
}

TEST_CASE("feedstock commands: bad input gives one clear line and a non-zero exit") {
    fs::TempDir tmp("sf-it-feed");
    auto missing = (tmp.path() / "variants").string();
    check_one_line_error(sf_run({"ci-matrix", "--variants-dir", missing}), "variants directory does not exist");
    check_one_line_error(sf_run({"rerender", (tmp.path() / "nope").string()}), "recipe directory not found");
    check_one_line_error(sf_run({"submodules", "--source", tmp.path().string()}), "not a git repository");
    auto fx = test::data_dir() / "feedstock/submodules";
    check_one_line_error(sf_run({"lint", (tmp.path() / "nope").string()}), "recipe directory not found");
    // Malformed repodata: the git checkout is the test's own source tree when it is one.
    if (stdfs::exists(test::source_dir() / ".git"))
        check_one_line_error(sf_run({"submodules", "--source", test::source_dir().string(), "--recipe",
                                     (fx / "recipe").string(), "--repodata", (fx / "malformed-repodata.json").string()}),
                             "malformed repodata");
    process::Env env = {{"SPLITFORGE", (tiny() / "fake-splitforge.sh").string()},
                        {"SF_RECIPE", (tiny() / "recipe").string()},
                        {"SF_VARIANTS_DIR", (tiny() / "variants").string()},
                        {"SF_ARTIFACTS", (tmp.path() / "ba").string()}};
    auto unknown = build_locally({"no_such_config"}, env);
    CHECK(unknown.exit_code != 0);
    CHECK(unknown.err.find("unknown config 'no_such_config'") != std::string::npos);
    // Configs for another platform: left out of --all, refused by name.
    env["SF_VARIANTS_DIR"] = (test::data_dir() / "feedstock/rerender/perpython/expected").string();
    auto all = build_locally({"--list"}, env);
    CHECK(all.err.find("config(s) for other platforms left out") != std::string::npos);
    CHECK(all.out.find("osx_arm64_") == std::string::npos);
    check_one_line_error(build_locally({"osx_arm64_python3.12.____cpython"}, env), "targets osx-arm64; this host builds");
    env["SF_VARIANTS_DIR"] = missing;
    check_one_line_error(build_locally({"--all"}, env), "variants directory '" + missing + "' not found");
}

TEST_CASE("render variants lint and rerender warn about what conda-build accepts and --strict refuses it") {
    std::string recipe = (test::data_dir() / "render/good/lenient-unknown-selector").string();
    for (std::vector<std::string> cmd : {std::vector<std::string>{"render", recipe, "--platform", "linux-64"},
                                         std::vector<std::string>{"variants", recipe, "--platform", "linux-64"}}) {
        INFO(cmd.front());
        auto ok = sf_run(cmd);
        CHECK(ok.exit_code == 0);
        CHECK(ok.err.find("warning: ") != std::string::npos);
        CHECK(ok.err.find("unknown name 'aarch' in selector [aarch] reads as False") != std::string::npos);
        cmd.push_back("--strict");
        auto strict = sf_run(cmd);
        CHECK(strict.exit_code == 2);
        CHECK(strict.err.find("error: ") != std::string::npos);
        CHECK(strict.err.find("unknown name 'aarch' in selector [aarch] (use a platform flag") != std::string::npos);
    }
    fs::TempDir tmp;
    auto rer = sf_run({"rerender", recipe, "--variants-dir", (tmp.path() / "v").string(), "--platform", "linux-64"});
    CHECK(rer.exit_code == 0);
    CHECK(rer.err.find("reads as False") != std::string::npos);
    auto rer_strict = sf_run({"rerender", recipe, "--variants-dir", (tmp.path() / "w").string(), "--platform",
                              "linux-64", "--strict"});
    CHECK(rer_strict.exit_code == 2);
    auto lint = sf_run({"lint", recipe, "--platform", "linux-64"});
    CHECK(lint.exit_code == 0);
    CHECK(lint.out.find("warning: key 'aarch' is used by the recipe but missing") != std::string::npos);
    auto lint_strict = sf_run({"lint", recipe, "--platform", "linux-64", "--strict"});
    CHECK(lint_strict.exit_code == 1);
    CHECK(lint_strict.out.find("error: key 'aarch'") != std::string::npos);
}
