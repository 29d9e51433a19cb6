// recipe.yaml builds as rattler-build runs them, on small recipes
// (tests/data/engine/v1_*): pin_compatible against the build's envs, the
// default build.sh, several staging outputs each with its own work dir and
// run_exports, `inherit: {run_exports: false}`, pip_check, and one test
// environment per tests: item.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

using test::sf_run;

std::string recipe(const std::string& name) { return (test::data_dir() / "engine" / name).string(); }

// Builds a recipe into `out`; the build must succeed.
nlohmann::json build(const std::string& name, const stdfs::path& out) {
    auto r = sf_run({"build", recipe(name), "--output-folder", out.string(), "-q", "--json"});
    INFO(name << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out);
}

// The repodata record of `name` in the channel's platform subdir.
nlohmann::json record(const stdfs::path& out, const std::string& name) {
    for (const auto& e : stdfs::directory_iterator(out)) {
        if (!e.is_directory() || e.path().filename() == "noarch" || !stdfs::exists(e.path() / "repodata.json")) continue;
        auto j = nlohmann::json::parse(test::slurp(e.path() / "repodata.json"));
        for (const auto& [file, rec] : j["packages.conda"].items())
            if (rec["name"] == name) return rec;
    }
    FAIL("no package " << name << " in " << out);
    return {};
}

std::vector<std::string> strings(const nlohmann::json& a) {
    std::vector<std::string> out;
    for (const auto& s : a) out.push_back(s.get<std::string>());
    return out;
}

// Installs `name` from the channel into a fresh prefix; returns the prefix.
stdfs::path install(const stdfs::path& out, const stdfs::path& prefix, const std::string& name) {
    auto r = sf_run({"install", "-p", prefix.string(), "-c", out.string(), name});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return prefix;
}

// The files an installed package put in the prefix (its conda-meta record).
std::vector<std::string> files_of(const stdfs::path& prefix, const std::string& name) {
    for (const auto& e : stdfs::directory_iterator(prefix / "conda-meta")) {
        auto j = nlohmann::json::parse(test::slurp(e.path()), nullptr, false);
        if (j.is_object() && j.value("name", "") == name) return strings(j["files"]);
    }
    FAIL("no conda-meta record for " << name);
    return {};
}

}  // namespace

TEST_CASE("v1 build: pin_compatible pins run and run_constraints to the host env's version") {
    fs::TempDir tmp("sf-it-v1");
    stdfs::path out = tmp.path() / "out";
    build("v1_dep", out);
    build("v1_pins", out);
    auto rec = record(out, "sf-v1-pins");
    CHECK(strings(rec["depends"]) == std::vector<std::string>{"sf-v1-dep >=1.2.3,<1.3.0a0"});
    CHECK(strings(rec["constrains"]) == std::vector<std::string>{"sf-v1-dep >=1.0"});
}

TEST_CASE("v1 build: a pin_compatible on a package in neither env fails naming it") {
    fs::TempDir tmp("sf-it-v1");
    stdfs::path out = tmp.path() / "out";
    stdfs::path dir = tmp.path() / "recipe";
    stdfs::create_directories(dir);
    REQUIRE(fs::write_file_atomic(dir / "recipe.yaml", "schema_version: 1\npackage:\n  name: sf-v1-nopin\n  version: 1.0\n"
                                               "build:\n  script:\n    - mkdir -p $PREFIX/share/x && touch $PREFIX/share/x/y\n"
                                               "requirements:\n  run:\n    - ${{ pin_compatible('sf-v1-absent') }}\n"));
    auto r = sf_run({"build", dir.string(), "--output-folder", out.string(), "-q"});
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("pin_compatible('sf-v1-absent')") != std::string::npos);
    CHECK(r.err.find("neither the host nor the build environment") != std::string::npos);
}

TEST_CASE("v1 build: without build.script a single-output recipe runs its build.sh") {
    fs::TempDir tmp("sf-it-v1");
    stdfs::path out = tmp.path() / "out";
    build("v1_default_script", out);
    auto prefix = install(out, tmp.path() / "p", "sf-v1-default-script");
    CHECK(stdfs::exists(prefix / "share/sf-v1-default-script/made-by-build-sh.txt"));
}

TEST_CASE("v1 build: a staging output without a script runs build.sh, a package output without one runs nothing") {
    fs::TempDir tmp("sf-it-v1");
    stdfs::path out = tmp.path() / "out";
    auto j = build("v1_multi_default", out);
    REQUIRE(j["stagings"].size() == 1);
    auto prefix = install(out, tmp.path() / "p", "sf-v1-multi-meta");
    // The lib output inherits the staging output and packages what build.sh installed.
    CHECK(stdfs::exists(prefix / "share/sf-v1-multi/staged.txt"));
    auto files = files_of(prefix, "sf-v1-multi-meta");
    CHECK(files.empty());  // the metapackage ran no build.sh of its own
    CHECK(files_of(prefix, "sf-v1-multi-lib") == std::vector<std::string>{"share/sf-v1-multi/staged.txt"});
}

TEST_CASE("v1 build: each staging output runs its own script in its own work dir, and run_exports: false drops its exports") {
    fs::TempDir tmp("sf-it-v1");
    stdfs::path out = tmp.path() / "out";
    build("v1_dep", out);
    auto j = build("v1_stagings", out);
    for (const auto& o : j["outputs"]) {
        INFO(o.dump());
        CHECK(o["status"] == "built");
    }
    // sf-v1-from-a: no script, so stage-a's files; stage-a's host run_exports.
    auto a = install(out, tmp.path() / "a", "sf-v1-from-a");
    CHECK(stdfs::exists(a / "share/sf-v1-stagings/a.txt"));
    CHECK_FALSE(stdfs::exists(a / "share/sf-v1-stagings/b.txt"));
    CHECK(strings(record(out, "sf-v1-from-a")["depends"]) == std::vector<std::string>{"sf-v1-dep >=1.2.3,<2.0a0"});
    // inherit: {from: stage-a, run_exports: false}: stage-a's work dir, none of its exports.
    CHECK(record(out, "sf-v1-from-a-no-exports")["depends"].empty());
    auto q = install(out, tmp.path() / "q", "sf-v1-from-a-no-exports");
    CHECK(stdfs::exists(q / "share/sf-v1-stagings/quiet.txt"));
    // rattler-build: files restored from the staging output are the inheriting
    // output's new files, with a script too (file_finder's from_prefix).
    CHECK(stdfs::exists(q / "share/sf-v1-stagings/a.txt"));
    // sf-v1-from-b's script checked that it starts from stage-b (its work dir and prefix) only.
    auto b = install(out, tmp.path() / "b", "sf-v1-from-b");
    CHECK(stdfs::exists(b / "share/sf-v1-stagings/from-b.txt"));
    CHECK(stdfs::exists(b / "share/sf-v1-stagings/b.txt"));
    CHECK(record(out, "sf-v1-from-b")["depends"].empty());
}

TEST_CASE("v1 build: pip_check runs pip check where the test prefix has pip, and says so where it has none") {
    fs::TempDir tmp("sf-it-v1");
    stdfs::path out = tmp.path() / "out";
    auto r = sf_run({"build", recipe("v1_pip_check"), "--output-folder", out.string(), "-q", "--json", "--variant",
                     "python=3.12"});
    if (r.exit_code != 0 && r.err.find("no such interpreter") != std::string::npos)
        test::skip("needs a CPython 3.12 with headers (PATH or pyenv)");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    std::map<std::string, std::string> test_of;
    const auto report = nlohmann::json::parse(r.out);
    for (const auto& o : report["outputs"])
        test_of[o["name"].get<std::string>()] = o["test"].get<std::string>();
    CHECK(test_of["sf-v1-pip-unchecked"] == "passed");
    // The system provider's Python package carries no site-packages, so no pip:
    // never a silent pass. With pip there, `python -m pip check` ran and passed.
    const std::string& checked = test_of["sf-v1-pip-checked"];
    CHECK((checked == "passed, pip check skipped (no pip in the test prefix)" || checked == "passed"));
    if (checked == "passed") CHECK(test::slurp(out / "logs" / (record(out, "sf-v1-pip-checked")["name"].get<std::string>() + "-0.1.0-" +
                                                               record(out, "sf-v1-pip-checked")["build"].get<std::string>() + ".log"))
                                       .find("No broken requirements") != std::string::npos);
}

TEST_CASE("v1 build: each tests: item runs in an environment of its own") {
    fs::TempDir tmp("sf-it-v1");
    stdfs::path out = tmp.path() / "out";
    build("v1_dep", out);
    // The second script test checks that the first one's requirement is absent.
    auto j = build("v1_test_envs", out);
    REQUIRE(j["outputs"].size() == 1);
    CHECK(j["outputs"][0]["test"] == "passed");
}

TEST_CASE("v1 build: package_contents tests check the package's paths as rattler-build's globs do") {
    fs::TempDir tmp("sf-it-v1");
    stdfs::path out = tmp.path() / "out";
    auto j = build("v1_contents", out);
    REQUIRE(j["outputs"].size() == 1);
    CHECK(j["outputs"][0]["test"] == "passed");

    stdfs::path bad = tmp.path() / "bad";
    auto r = sf_run({"build", recipe("v1_contents_bad"), "--output-folder", bad.string(), "-q"});
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("package_contents: no match for lib glob: sfc-missing") != std::string::npos);
    CHECK(r.err.find("files not_exists glob share/sfc/*.bak matches share/sfc/data.bak") != std::string::npos);
    CHECK(stdfs::exists(bad / "broken"));
}

TEST_CASE("v1 build: build.steps renders but the build refuses it, naming its line") {
    fs::TempDir tmp("sf-it-v1");
    stdfs::path out = tmp.path() / "out";
    auto rendered = sf_run({"render", recipe("v1_steps")});
    INFO(rendered.err);
    CHECK(rendered.exit_code == 0);
    auto r = sf_run({"build", recipe("v1_steps"), "--output-folder", out.string(), "-q"});
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("recipe.yaml:10:") != std::string::npos);
    CHECK(r.err.find("build.steps is not supported") != std::string::npos);
    const bool published = stdfs::exists(out / "linux-64/repodata.json") &&
                           test::slurp(out / "linux-64/repodata.json").find("sf-v1-steps") != std::string::npos;
    CHECK_FALSE(published);
}

// rattler-build installs the downstream package with the one just built and
// runs its tests (an unsolvable spec: a warning and a pass). splitforge
// runs neither, and says so in the summary and --json: never a silent pass.
TEST_CASE("v1 build: a downstream test is reported skipped, beside the tests that ran") {
    fs::TempDir tmp("sf-it-v1");
    stdfs::path out = tmp.path() / "out";
    auto j = build("v1_downstream", out);
    REQUIRE(j["outputs"].size() == 1);
    CHECK(j["outputs"][0]["test"] ==
          "downstream test 'sf-v1-dep' skipped (not run by splitforge) [v1-downstream-test]");
    auto r = sf_run({"build", recipe("v1_downstream"), "--output-folder", (tmp.path() / "again").string()});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK((r.out + r.err).find("downstream test 'sf-v1-dep' skipped") != std::string::npos);
}
