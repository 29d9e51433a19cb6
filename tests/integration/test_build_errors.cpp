// `splitforge build` on small throwaway recipes (tests/data/engine): bad
// inputs give one clear error line, a non-zero exit and a clean output folder.
// The exit code says whose problem it is (README, "Exit codes"), also when the
// build meets it late: 2 for what the user gave (a source, a patch file, the
// recipe), 1 for what failed when it ran (a script, a test, a patch that does
// not apply, linkage).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;
using test::last_line;

namespace {

struct Run {
    int rc = -1;
    std::string err, out;
};

Run build(const std::string& recipe, const stdfs::path& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {test::binary().string(), "build",
                                     (test::data_dir() / "engine" / recipe).string(),
                                     "--output-folder", out.string(), "-q"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    process::Command c{argv, {}, process::current_env(), {}, {}, {}};
    auto r = process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->err, r->out};
}

// Packages outside broken/ and stray temp files.
std::vector<std::string> stray(const stdfs::path& out) {
    std::vector<std::string> bad;
    std::error_code ec;
    if (!stdfs::exists(out)) return bad;
    for (auto& e : stdfs::recursive_directory_iterator(out, ec)) {
        std::string rel = e.path().lexically_relative(out).string();
        std::string n = e.path().filename().string();
        bool pkg = str::ends_with(n, ".conda") || str::ends_with(n, ".tar.bz2");
        if ((pkg && !str::starts_with(rel, "broken/")) || n.find(".tmp") != std::string::npos ||
            n.find("partial") != std::string::npos)
            bad.push_back(rel);
    }
    return bad;
}

constexpr int kFailed = 1, kInput = 2;

void expect_clean_failure(const Run& r, const stdfs::path& out, const std::string& needle, int rc) {
    INFO(r.err);
    CHECK(r.rc == rc);
    std::string line = last_line(r.err);
    CHECK(str::starts_with(line, "splitforge: error: "));
    CHECK(line.find(needle) != std::string::npos);
    CHECK(stray(out).empty());
}

}  // namespace

TEST_CASE("build: a good recipe lands in the channel, and a rerun with --skip-existing skips it", "[engine]") {
    fs::TempDir tmp("sf-engine-it");
    auto r = build("ok", tmp.path() / "out");
    INFO(r.err);
    REQUIRE(r.rc == 0);
    CHECK(stdfs::exists(tmp.path() / "out/linux-64/sf-ok-1.0.0-0.conda"));
    CHECK(stdfs::exists(tmp.path() / "out/linux-64/repodata.json"));
    CHECK(test::slurp(tmp.path() / "out/linux-64/repodata.json").find("sf-ok-1.0.0-0.conda") != std::string::npos);
    CHECK(stdfs::exists(tmp.path() / "out/logs/sf-ok-1.0.0-0.log"));
    auto again = build("ok", tmp.path() / "out", {"--json", "--skip-existing"});
    REQUIRE(again.rc == 0);
    CHECK(again.out.find("skipped (in channel)") != std::string::npos);
    CHECK(again.out.find("\"built\"") == std::string::npos);
}

TEST_CASE("build: outputs selected by files: globs from the staging build", "[engine]") {
    fs::TempDir tmp("sf-engine-it");
    auto r = build("files_glob", tmp.path() / "out");
    INFO(r.err);
    REQUIRE(r.rc == 0);
    CHECK(stdfs::exists(tmp.path() / "out/linux-64/libsfglob-1.0.0-0.conda"));
    CHECK(stdfs::exists(tmp.path() / "out/linux-64/libsfglob-devel-1.0.0-0.conda"));
}

TEST_CASE("build: outputs as conda-build builds them (lz4-c, gtest shapes)", "[engine]") {
    fs::TempDir tmp("sf-engine-it");
    stdfs::path out = tmp.path() / "out";
    auto r = build("conda_build_outputs", out);
    INFO(r.err);
    REQUIRE(r.rc == 0);  // the scripts and tests check CONDA_BUILD_STATE, SHLIB_EXT, TOP_PKG_NAME
    process::Command c{{test::binary().string(), "inspect", (out / "linux-64/sf-cbo-1.0.0-0.conda").string()},
                       {}, process::current_env(), {}, {}, {}};
    auto files = process::capture(c);
    REQUIRE(files);
    CHECK(files->out.find("lib/libsfcbo.so") != std::string::npos);
    CHECK(files->out.find("libsfcbo.la") == std::string::npos);  // conda-build's filter_files
    c.argv[2] = (out / "linux-64/sf-cbo-static-1.0.0-0.conda").string();
    files = process::capture(c);
    REQUIRE(files);
    CHECK(files->out.find("files (1):\n  lib/libsfcbo.a") != std::string::npos);  // not the staged .so
    CHECK(stdfs::exists(out / "linux-64/sf-cbo-meta-1.0.0-0.conda"));  // no python looked for
}

TEST_CASE("build: bad inputs fail with one line and a clean output folder", "[engine]") {
    fs::TempDir tmp("sf-engine-it");
    stdfs::path out = tmp.path() / "out";
    SECTION("bad sha256: the recipe's, exit 2") {
        expect_clean_failure(build("bad_sha256", out), out, "sf-bad-sha [default]: source: sha256 mismatch", kInput);
    }
    SECTION("a path: source that does not exist: exit 2") {
        expect_clean_failure(build("missing_path", out), out,
                             "sf-missing-path [default]: source: source path ../no-such-source-dir", kInput);
    }
    SECTION("missing patch: exit 2") {
        expect_clean_failure(build("missing_patch", out), out, "0001-does-not-exist.patch", kInput);
    }
    SECTION("an output's script the recipe does not have, met at that output: exit 2") {
        auto r = build("missing_script", out);
        expect_clean_failure(r, out, "sf-missing-script-lib-1.0.0-0: script: the build script does not exist", kInput);
        CHECK(last_line(r.err).find("missing_script/no-such-build.sh") != std::string::npos);
    }
    SECTION("patch that does not apply: exit 1") {
        expect_clean_failure(build("bad_patch", out), out, "0001-does-not-apply.patch", kFailed);
    }
    SECTION("failing build script: exit 1") {
        auto r = build("failing_script", out);
        expect_clean_failure(r, out, "sf-failing-script-1.0.0-0: script: build.sh failed with exit code 3", kFailed);
        CHECK(test::slurp(out / "logs/sf-failing-script-1.0.0-0.log").find("about to fail") != std::string::npos);
    }
    SECTION("failing test: the package goes to broken/, not the channel, exit 1") {
        auto r = build("failing_test", out);
        expect_clean_failure(r, out, "sf-failing-test-1.0.0-0: test:", kFailed);
        CHECK(last_line(r.err).find("not-installed.txt") != std::string::npos);
        CHECK(stdfs::exists(out / "broken/sf-failing-test-1.0.0-0.conda"));
        CHECK(test::slurp(out / "linux-64/repodata.json").find("sf-failing-test") == std::string::npos);
    }
    SECTION("unknown requirement under the system provider: an env that cannot be made, exit 1 as in install") {
        auto r = build("unknown_req", out);
        expect_clean_failure(r, out, "libfrobnicate-nonexistent", kFailed);
        CHECK(last_line(r.err).find("--env-provider micromamba") != std::string::npos);
    }
    SECTION("missing interpreter") {
        auto r = build("missing_python", out);
        expect_clean_failure(r, out, "python 3.99 not found", kInput);
    }
    SECTION("missing interpreter, skipped on request") {
        auto r = build("missing_python", out, {"--skip-unavailable"});
        INFO(r.err);
        CHECK(r.rc == kInput);  // nothing else to build
        CHECK(last_line(r.err).find("nothing to build") != std::string::npos);
    }
    SECTION("--json carries the same exit code as the process") {
        for (const auto& [recipe, rc] : std::vector<std::pair<std::string, int>>{{"bad_sha256", kInput},
                                                                                  {"failing_script", kFailed}}) {
            auto r = build(recipe, tmp.path() / ("json-" + recipe), {"--json"});
            INFO(recipe << "\n" << r.out << r.err);
            CHECK(r.rc == rc);
            CHECK(r.out.find("\"exit_code\": " + std::to_string(rc)) != std::string::npos);
        }
    }
}

TEST_CASE("build: a missing source names its recipe line, every url and the cache path to fill", "[engine]") {
    fs::TempDir tmp("sf-engine-it");
    stdfs::path out = tmp.path() / "out", cache = tmp.path() / "cache";
    auto r = build("missing_source", out, {"--source-cache", cache.string()});
    const std::string sha = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
    const stdfs::path slot = cache / "src" / sha / "hello.txt";
    expect_clean_failure(r, out, "missing_source/meta.yaml:7: ", kInput);  // a url that is not there
    std::string line = last_line(r.err);
    CHECK(line.find("cannot fetch hello.txt: tried file:///nonexistent-splitforge/hello.txt (no such file "
                    "/nonexistent-splitforge/hello.txt), file:///nonexistent-splitforge-mirror/hello.txt") !=
          std::string::npos);
    CHECK(r.err.find("put the file (sha256 " + sha + ") at " + slot.string()) != std::string::npos);

    // A maintainer behind a firewall puts the file there: the build uses it.
    stdfs::create_directories(slot.parent_path());
    stdfs::copy_file(test::data_dir() / "engine/src/hello.txt", slot);
    auto ok = build("missing_source", out, {"--source-cache", cache.string()});
    INFO(ok.err);
    CHECK(ok.rc == 0);
    CHECK(stdfs::exists(out / "linux-64/sf-missing-source-1.0.0-0.conda"));
}

TEST_CASE("build: --strict makes the stand-in and ignored-test warnings errors naming the rule", "[engine]") {
    fs::TempDir tmp("sf-engine-it");
    stdfs::path out = tmp.path() / "out";
    for (const auto& [recipe, rule] : std::vector<std::pair<std::string, std::string>>{
             {"host_compiler", "[host-compiler-version]"},  // gcc 99: no host has it
             {"host_glibc", "[host-glibc-version]"},        // sysroot 2.12: every glibc is newer
             {"same_name_test", "[same-name-output-test]"}}) {
        INFO(recipe);
        auto warned = build(recipe, out);
        INFO(warned.err);
        CHECK(warned.rc == 0);  // a warning: the build goes on (and the ignored `exit 7` test never runs)
        CHECK(warned.err.find("warning") != std::string::npos);
        CHECK(warned.err.find(rule) != std::string::npos);
        stdfs::path strict_out = tmp.path() / ("strict-" + recipe);
        expect_clean_failure(build(recipe, strict_out, {"--strict"}), strict_out, rule, kInput);
    }
}

TEST_CASE("build: a packaging warning shows in the output and in --json, and --strict fails on it", "[engine]") {
    if (!process::find_executable("cc", process::current_env()["PATH"])) test::skip("needs a C compiler (cc) on PATH");
    fs::TempDir tmp("sf-engine-it");
    const std::string warned = "lib/libsf_outside.so: rpath entry /opt/sf-outside/lib is outside the prefix (removed)";
    auto plain = build("rpath_outside", tmp.path() / "out");
    INFO(plain.err);
    REQUIRE(plain.rc == 0);
    CHECK(plain.err.find("warning: sf-rpath-outside-1.0.0-0: " + warned) != std::string::npos);

    auto json = build("rpath_outside", tmp.path() / "json", {"--json"});
    INFO(json.err);
    REQUIRE(json.rc == 0);
    auto doc = nlohmann::json::parse(json.out);
    REQUIRE(doc.contains("warnings"));
    bool listed = false;
    for (const auto& w : doc["warnings"]) listed = listed || w.get<std::string>().find(warned) != std::string::npos;
    CHECK(listed);

    stdfs::path strict_out = tmp.path() / "strict";
    auto strict = build("rpath_outside", strict_out, {"--strict"});
    expect_clean_failure(strict, strict_out, "[strict-package-warning]", kInput);
    CHECK(last_line(strict.err).find(warned) != std::string::npos);
    CHECK_FALSE(stdfs::exists(strict_out / "linux-64/sf-rpath-outside-1.0.0-0.conda"));
}
