// `splitforge build` on small throwaway recipes (tests/data/engine): bad
// inputs give one clear error line, a non-zero exit and a clean output folder.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "process/process.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

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

std::string last_line(const std::string& s) {
    auto lines = str::split_lines(s);
    while (!lines.empty() && str::trim(lines.back()).empty()) lines.pop_back();
    return lines.empty() ? "" : lines.back();
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

void expect_clean_failure(const Run& r, const stdfs::path& out, const std::string& needle) {
    INFO(r.err);
    CHECK(r.rc != 0);
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
    SECTION("bad sha256") {
        expect_clean_failure(build("bad_sha256", out), out, "sha256 mismatch");
    }
    SECTION("missing patch") {
        expect_clean_failure(build("missing_patch", out), out, "0001-does-not-exist.patch");
    }
    SECTION("patch that does not apply") {
        expect_clean_failure(build("bad_patch", out), out, "0001-does-not-apply.patch");
    }
    SECTION("failing build script") {
        auto r = build("failing_script", out);
        expect_clean_failure(r, out, "build.sh failed with exit code 3");
        CHECK(test::slurp(out / "logs/sf-failing-script-1.0.0-0.log").find("about to fail") != std::string::npos);
    }
    SECTION("failing test: the package goes to broken/, not the channel") {
        auto r = build("failing_test", out);
        expect_clean_failure(r, out, "sf-failing-test-1.0.0-0: test:");
        CHECK(last_line(r.err).find("not-installed.txt") != std::string::npos);
        CHECK(stdfs::exists(out / "broken/sf-failing-test-1.0.0-0.conda"));
        CHECK(test::slurp(out / "linux-64/repodata.json").find("sf-failing-test") == std::string::npos);
    }
    SECTION("unknown requirement under the system provider") {
        auto r = build("unknown_req", out);
        expect_clean_failure(r, out, "libfrobnicate-nonexistent");
        CHECK(last_line(r.err).find("--env-provider micromamba") != std::string::npos);
    }
    SECTION("missing interpreter") {
        auto r = build("missing_python", out);
        expect_clean_failure(r, out, "python 3.99 not found");
    }
    SECTION("missing interpreter, skipped on request") {
        auto r = build("missing_python", out, {"--skip-unavailable"});
        INFO(r.err);
        CHECK(r.rc != 0);  // nothing else to build
        CHECK(last_line(r.err).find("nothing to build") != std::string::npos);
    }
}

TEST_CASE("build: a missing source names its recipe line, every url and the cache path to fill", "[engine]") {
    fs::TempDir tmp("sf-engine-it");
    stdfs::path out = tmp.path() / "out", cache = tmp.path() / "cache";
    auto r = build("missing_source", out, {"--source-cache", cache.string()});
    const std::string sha = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
    const stdfs::path slot = cache / "src" / sha / "hello.txt";
    expect_clean_failure(r, out, "missing_source/meta.yaml:7: ");
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
        expect_clean_failure(build(recipe, strict_out, {"--strict"}), strict_out, rule);
    }
}
