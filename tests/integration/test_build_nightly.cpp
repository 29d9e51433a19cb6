// `build --nightly [YYYYMMDD]`: one version everywhere, X.Y.Z.devYYYYMMDD,
// for every package of the recipe and the pins and specs between its
// outputs, in both front ends; a build without it keeps X.Y.Z. (The wheels
// and libtorch archives take the packages' version: the demo's are checked
// in test_build_e2e.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testproc.hpp"
#include "util/fs.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

// file name -> depends, from the output folder's linux-64 repodata.
std::map<std::string, std::vector<std::string>> depends_in(const stdfs::path& out) {
    auto j = nlohmann::json::parse(test::slurp(out / "linux-64/repodata.json"));
    std::map<std::string, std::vector<std::string>> m;
    for (const auto& [fn, rec] : j["packages.conda"].items()) m[fn] = rec["depends"].get<std::vector<std::string>>();
    return m;
}

test::Ran build(const std::string& recipe, const stdfs::path& out, std::vector<std::string> extra) {
    std::vector<std::string> args = {"build", (test::data_dir() / "engine" / recipe).string(), "--output-folder",
                                     out.string(), "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_splitforge(args);
}

}  // namespace

TEST_CASE("build --nightly: every package and the exact pin between outputs take X.Y.Z.devYYYYMMDD", "[engine][nightly]") {
    fs::TempDir tmp("sf-nightly");
    auto r = build("files_glob", tmp.path() / "n", {"--nightly", "20261202"});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    auto n = depends_in(tmp.path() / "n");
    CHECK(n.count("libsfglob-1.0.0.dev20261202-0.conda"));
    REQUIRE(n.count("libsfglob-devel-1.0.0.dev20261202-0.conda"));
    CHECK(n["libsfglob-devel-1.0.0.dev20261202-0.conda"] == std::vector<std::string>{"libsfglob 1.0.0.dev20261202 0"});

    auto plain = build("files_glob", tmp.path() / "p", {});
    REQUIRE(plain.rc == 0);
    CHECK(depends_in(tmp.path() / "p").count("libsfglob-1.0.0-0.conda"));

    auto v1 = build("v1_multi_default", tmp.path() / "v1", {"--nightly", "20261202"});
    INFO(v1.err);
    REQUIRE(v1.rc == 0);
    bool pinned = false;
    for (const auto& [fn, deps] : depends_in(tmp.path() / "v1"))
        if (fn.rfind("sf-v1-multi-meta-0.1.0.dev20261202-", 0) == 0)
            for (const auto& d : deps) pinned = pinned || d.rfind("sf-v1-multi-lib ==0.1.0.dev20261202 ", 0) == 0;
    CHECK(pinned);
}

TEST_CASE("build --nightly: no value is today in UTC, from SOURCE_DATE_EPOCH when set, and a bad date is exit 2",
          "[engine][nightly]") {
    fs::TempDir tmp("sf-nightly");
    process::Env env = process::current_env();
    env["SOURCE_DATE_EPOCH"] = "1764633600";  // 2025-12-02T00:00:00Z
    process::Command c;
    c.argv = {test::binary().string(), "build", (test::data_dir() / "engine/files_glob").string(), "--output-folder",
              (tmp.path() / "d").string(), "-q", "--nightly"};
    c.env = env;
    auto r = process::capture(c);
    REQUIRE(r);
    INFO(r->err);
    REQUIRE(r->exit_code == 0);
    CHECK(depends_in(tmp.path() / "d").count("libsfglob-1.0.0.dev20251202-0.conda"));
    for (const char* bad : {"20261340", "20261315", "20260230", "2026-12-02", "tomorrow"}) {
        auto b = build("files_glob", tmp.path() / "b", {"--nightly", bad});
        CHECK(b.rc == 2);
        CHECK(test::last_line(b.err).find(std::string("--nightly: '") + bad + "' is not a date") != std::string::npos);
    }
    CHECK_FALSE(stdfs::exists(tmp.path() / "b/linux-64"));
}

TEST_CASE("build --release TAG: the tag names the recipe's version, the packages are labelled test, a mismatch is exit 2",
          "[engine][release]") {
    fs::TempDir tmp("sf-release");
    auto r = build("files_glob", tmp.path() / "r", {"--release", "v1.0.0-rc2", "--json"});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    CHECK(nlohmann::json::parse(r.out)["label"] == "test");
    CHECK(depends_in(tmp.path() / "r").count("libsfglob-1.0.0-0.conda"));

    auto plain = build("files_glob", tmp.path() / "p", {"--dry-run", "--json"});
    REQUIRE(plain.rc == 0);
    CHECK(nlohmann::json::parse(plain.out)["label"] == "main");
    auto nightly = build("files_glob", tmp.path() / "p", {"--dry-run", "--json", "--nightly", "20261202"});
    REQUIRE(nightly.rc == 0);
    CHECK(nlohmann::json::parse(nightly.out)["label"] == "nightly");

    auto other = build("files_glob", tmp.path() / "o", {"--release", "v2.6.0-rc3"});
    CHECK(other.rc == 2);
    CHECK(test::last_line(other.err).find("--release v2.6.0-rc3 is version 2.6.0, but") != std::string::npos);
    auto bad = build("files_glob", tmp.path() / "o", {"--release", "nightly"});
    CHECK(bad.rc == 2);
    CHECK(test::last_line(bad.err).find("'nightly' is not a release tag") != std::string::npos);
    auto both = build("files_glob", tmp.path() / "o", {"--release", "v1.0.0", "--nightly"});
    CHECK(both.rc == 2);
    CHECK_FALSE(stdfs::exists(tmp.path() / "o"));
}
