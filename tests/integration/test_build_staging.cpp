// `build --staging-only` and `build --from-staging` on a small split recipe
// (tests/data/engine/files_glob): the archive carries the staging tree to a
// fresh work dir, and a manifest that does not fit this build, or points the
// restore at a dir that is not a fresh work area's, is an input error (exit 2)
// that touches nothing. `--time-limit` stops a staging build (tests/data/
// engine/time_limit) into a partial archive that later jobs resume. The
// demo's megabuild through an archive is in test_build_e2e.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testproc.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

using Run = test::Ran;

Run build(const std::string& recipe, const stdfs::path& out, std::vector<std::string> extra) {
    std::vector<std::string> args = {"build", (test::data_dir() / "engine" / recipe).string(), "--output-folder",
                                     out.string(), "-q", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_splitforge(args);
}

int tar(std::vector<std::string> args) {
    args.insert(args.begin(), "tar");
    auto r = test::run(args);
    INFO(r.err);
    return r.rc;
}

// The archive `--staging-only` wrote into `out` (exactly one).
stdfs::path staged_archive(const Run& r) {
    INFO(r.err);
    REQUIRE(r.rc == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["outputs"].empty());
    REQUIRE(j["staging_archives"].size() == 1);
    return j["staging_archives"][0].get<std::string>();
}

// A copy of `archive` whose manifest `edit` rewrote (the manifest stays first).
stdfs::path with_manifest(const stdfs::path& archive, const stdfs::path& dir,
                          const std::function<void(nlohmann::json&)>& edit) {
    const stdfs::path tree = dir / "tree";
    stdfs::create_directories(tree);
    REQUIRE(tar({"-I", "zstd", "-xf", archive.string(), "-C", tree.string()}) == 0);
    nlohmann::json m;
    std::ifstream(tree / "splitforge-staging.json") >> m;
    edit(m);
    std::ofstream(tree / "splitforge-staging.json") << m.dump(1);
    std::vector<std::string> members = {"splitforge-staging.json"};
    for (const auto& e : stdfs::directory_iterator(tree))
        if (e.path().filename() != "splitforge-staging.json") members.push_back(e.path().filename().string());
    const stdfs::path out = dir / archive.filename();
    std::vector<std::string> args = {"-I", "zstd", "-cf", out.string(), "-C", tree.string()};
    args.insert(args.end(), members.begin(), members.end());
    REQUIRE(tar(args) == 0);
    return out;
}

}  // namespace

TEST_CASE("build --staging-only writes one archive, --from-staging builds the outputs from it in a fresh work dir",
          "[engine][staging]") {
    fs::TempDir tmp("sf-staging-it");
    const stdfs::path out = tmp.path() / "out";
    const stdfs::path archive = staged_archive(build("files_glob", out, {"--staging-only"}));
    CHECK(str::starts_with(archive.filename().string(), "sf-glob-split-1.0.0-"));
    CHECK(str::ends_with(archive.string(), ".tar.zst"));
    CHECK_FALSE(stdfs::exists(out / "linux-64/libsfglob-1.0.0-0.conda"));

    // The next job's checkout: no work dir, the archive only, another output
    // folder; the tree goes back where it was built.
    stdfs::remove_all(out / ".splitforge-work");
    const stdfs::path out2 = tmp.path() / "out2";
    auto r = build("files_glob", out2, {"--from-staging", archive.string()});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["stagings"].size() == 1);
    CHECK(j["stagings"][0]["staging_s"].get<double>() == 0.0);  // restored, not run
    CHECK(stdfs::exists(out2 / "linux-64/libsfglob-1.0.0-0.conda"));
    CHECK(stdfs::exists(out2 / "linux-64/libsfglob-devel-1.0.0-0.conda"));
    // The restored work dir goes after the build, as every work dir does.
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(out / ".splitforge-work", ec)) CHECK_FALSE(e.is_directory());
}

TEST_CASE("build --from-staging: an archive that does not fit, or is hostile, is one error line and exit 2",
          "[engine][staging]") {
    fs::TempDir tmp("sf-staging-it");
    const stdfs::path out = tmp.path() / "out";
    const stdfs::path archive = staged_archive(build("files_glob", out, {"--staging-only"}));
    auto expect_input_error = [&](const Run& r, const std::string& needle) {
        INFO(r.err);
        CHECK(r.rc == 2);
        const std::string line = test::last_line(r.err);
        CHECK(str::starts_with(line, "splitforge: error: "));
        CHECK(line.find(needle) != std::string::npos);
        CHECK_FALSE(stdfs::exists(out / "linux-64/libsfglob-1.0.0-0.conda"));
    };

    SECTION("another recipe's archive") {
        expect_input_error(build("ok", out, {"--from-staging", archive.string()}), "staging build");
    }
    SECTION("not an archive") {
        const stdfs::path junk = tmp.path() / "junk.tar.zst";
        std::ofstream(junk) << "not zstd\n";
        expect_input_error(build("files_glob", out, {"--from-staging", junk.string()}), junk.string());
    }
    SECTION("a changed recipe") {
        const stdfs::path edited = with_manifest(archive, tmp.path() / "e1", [](nlohmann::json& m) {
            m["recipe_hash"] = std::string(64, '0');
        });
        expect_input_error(build("files_glob", out, {"--from-staging", edited.string()}), "recipe changed");
    }
    SECTION("another variant") {
        const stdfs::path edited = with_manifest(archive, tmp.path() / "e2", [](nlohmann::json& m) {
            m["variant"]["target_platform"] = "osx-arm64";
        });
        expect_input_error(build("files_glob", out, {"--from-staging", edited.string()}), "target_platform");
    }
    SECTION("another output folder's existing work dir") {
        const stdfs::path victim = tmp.path() / "victim/.splitforge-work/sf-glob-split-0123456789";
        stdfs::create_directories(victim);
        std::ofstream(victim / "keep") << "mine\n";
        const stdfs::path edited = with_manifest(archive, tmp.path() / "e3", [&](nlohmann::json& m) {
            m["work_dir"] = victim.string();
        });
        expect_input_error(build("files_glob", out, {"--from-staging", edited.string()}), "another output folder");
        CHECK(stdfs::exists(victim / "keep"));
    }
    SECTION("a work dir that is not a work area's") {
        const stdfs::path edited = with_manifest(archive, tmp.path() / "e5", [&](nlohmann::json& m) {
            m["work_dir"] = (tmp.path() / "home").string();
        });
        expect_input_error(build("files_glob", out, {"--from-staging", edited.string()}), "--work-dir");
        CHECK_FALSE(stdfs::exists(tmp.path() / "home"));
    }
    SECTION("a complete archive given to --staging-only: nothing to resume") {
        expect_input_error(build("files_glob", out, {"--staging-only", "--from-staging", archive.string()}),
                           "nothing to resume");
    }
    SECTION("a staging dir that climbs out of the work dir") {
        const stdfs::path edited = with_manifest(archive, tmp.path() / "e4", [](nlohmann::json& m) {
            m["dirs"][0]["base"] = "../../escape";
        });
        expect_input_error(build("files_glob", out, {"--from-staging", edited.string()}), "below the work dir");
        CHECK_FALSE(stdfs::exists(tmp.path() / "escape"));
    }
}

namespace {

// The ninja edges one run's staging build ran (its JSON report).
std::vector<std::string> edges_of(const Run& r) {
    auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["stagings"].size() == 1);
    return j["stagings"][0]["rebuilt"].get<std::vector<std::string>>();
}

}  // namespace

// Ten edges of 0.5 s: a run of limit L finishes at most 2L of them, so
// links of 1 s and 2 s both stop early, and whatever is left the third run
// (no limit, outputs too) finishes: every edge once over the three runs.
TEST_CASE("build --time-limit stops the staging build into a partial archive (exit 75), and resumed runs finish it",
          "[engine][staging]") {
    fs::TempDir tmp("sf-staging-tl");
    const stdfs::path out = tmp.path() / "out", out2 = tmp.path() / "out2";
    const stdfs::path partial = out / "staging/sf-time-limit-1.0.0-default.partial.tar.zst";
    std::vector<std::string> all;

    auto r1 = build("time_limit", out, {"--staging-only", "--time-limit", "1s"});
    INFO(r1.err);
    REQUIRE(r1.rc == 75);
    CHECK(nlohmann::json::parse(r1.out)["partial"] == true);
    CHECK(r1.err.find("stopped at the --time-limit") != std::string::npos);
    REQUIRE(stdfs::exists(partial));
    CHECK_FALSE(stdfs::exists(out / "staging/sf-time-limit-1.0.0-default.tar.zst"));
    for (auto& e : edges_of(r1)) all.push_back(e);
    CHECK(all.size() <= 2);

    // Link 2 resumes in the same output folder and writes the partial anew.
    auto r2 = build("time_limit", out, {"--staging-only", "--time-limit", "2s", "--from-staging", partial.string()});
    INFO(r2.err);
    REQUIRE(r2.rc == 75);
    for (auto& e : edges_of(r2)) all.push_back(e);
    CHECK(all.size() <= 6);
    REQUIRE(stdfs::exists(partial));

    // The last job: a fresh checkout (another output folder), no limit, and
    // the outputs built from the finished staging build.
    const stdfs::path moved = tmp.path() / "part.tar.zst";
    stdfs::rename(partial, moved);
    auto r3 = build("time_limit", out2, {"--from-staging", moved.string()});
    INFO(r3.err);
    REQUIRE(r3.rc == 0);
    auto j3 = nlohmann::json::parse(r3.out);
    CHECK(j3["partial"] == false);
    REQUIRE(j3["outputs"].size() == 1);
    CHECK(j3["outputs"][0]["status"] == "built");
    CHECK(j3["outputs"][0]["test"] == "passed");
    for (auto& e : edges_of(r3)) all.push_back(e);

    std::sort(all.begin(), all.end());
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());  // no edge twice
    std::vector<std::string> want;
    for (int i = 1; i <= 10; ++i) want.push_back(std::string("build/o") + (i < 10 ? "0" : "") + std::to_string(i));
    CHECK(all == want);
}

TEST_CASE("build --time-limit: only with --staging-only, and only a duration", "[engine][staging]") {
    fs::TempDir tmp("sf-staging-tl");
    const stdfs::path out = tmp.path() / "out";
    auto no_staging = build("time_limit", out, {"--time-limit", "5h"});
    CHECK(no_staging.rc == 2);
    CHECK(test::last_line(no_staging.err).find("--staging-only") != std::string::npos);
    auto bad = build("time_limit", out, {"--staging-only", "--time-limit", "soon"});
    CHECK(bad.rc == 2);
    CHECK(test::last_line(bad.err).find("--time-limit: 'soon' is not a duration") != std::string::npos);
    CHECK_FALSE(stdfs::exists(out / "staging"));
}

// A recipe dir that holds the output folder (a feedstock built in place):
// the archive and work dir written there are not part of the recipe hash.
TEST_CASE("build --from-staging: an output folder inside the recipe dir does not change the recipe hash",
          "[engine][staging]") {
    fs::TempDir tmp("sf-staging-inplace");
    const stdfs::path recipe = tmp.path() / "files_glob";
    stdfs::copy(test::data_dir() / "engine/files_glob", recipe, stdfs::copy_options::recursive);
    stdfs::copy(test::data_dir() / "engine/src", tmp.path() / "src", stdfs::copy_options::recursive);
    const stdfs::path out = recipe / "out";
    auto first = test::run_splitforge({"build", recipe.string(), "--output-folder", out.string(), "-q", "--json",
                                       "--staging-only"});
    const stdfs::path archive = staged_archive(first);
    auto r = test::run_splitforge({"build", recipe.string(), "--output-folder", out.string(), "-q", "--json",
                                   "--from-staging", archive.string()});
    INFO(r.err);
    CHECK(r.rc == 0);
    CHECK(stdfs::exists(out / "linux-64/libsfglob-1.0.0-0.conda"));
}
