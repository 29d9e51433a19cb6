// The command line's hints from a maintainer's first hour (issue 34): a
// did-you-mean for a package name the channels lack and for enum-like
// options, one JSON document on stdout for a usage error under --json, help
// and errors that agree, and rerender naming the flag and the missing pinning.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
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

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string ok_recipe() { return (test::data_dir() / "engine/ok").string(); }

}  // namespace

TEST_CASE("install of a name the channels lack suggests the nearest one") {
    fs::TempDir tmp("sf-it-hints");
    const stdfs::path out = tmp.path() / "out";
    auto built = sf_run({"build", ok_recipe(), "--output-folder", out.string(), "-q"});
    INFO(built.err);
    REQUIRE(built.exit_code == 0);
    auto install = [&](const std::string& spec) {
        return sf_run({"install", "-q", "-p", (tmp.path() / ("p-" + spec)).string(), "-c", out.string(),
                       "--pkgs-dir", (tmp.path() / "pkgs").string(), spec});
    };
    auto r = install("sf-okk");
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(has(r.err, "cannot satisfy 'sf-okk'"));
    CHECK(has(r.err, "did you mean 'sf-ok'?"));
    CHECK(install("sf-ok").exit_code == 0);  // the benign twin
    r = install("zzzzzzzz");                 // nothing near: no guess
    CHECK(r.exit_code == 1);
    CHECK_FALSE(has(r.err, "did you mean"));
}

TEST_CASE("enum-like options suggest the nearest value and the provider error agrees with the help") {
    fs::TempDir tmp("sf-it-hints");
    auto build = [&](const std::string& provider) {
        return sf_run({"build", ok_recipe(), "--dry-run", "--env-provider", provider, "--output-folder",
                       (tmp.path() / "o").string()});
    };
    auto r = build("micromaba");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "'micromaba' is not one of system, micromamba, mamba or conda; did you mean 'micromamba'?"));
    CHECK(has(r.err, "see `splitforge build --help`"));
    r = build("pixi");  // not in the help: not accepted either
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "'pixi' is not one of system, micromamba, mamba or conda"));
    CHECK(build("system").exit_code == 0);  // the benign twin
    r = sf_run({"--color", "alwyas", "render", ok_recipe()});
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "did you mean 'always'?"));
    r = sf_run({"render", ok_recipe(), "--format", "jsn"});
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "did you mean 'json'?"));
    auto help = sf_run({"build", "--help"});
    CHECK(help.exit_code == 0);
    CHECK(has(help.out, "micromamba|mamba|conda"));
    CHECK_FALSE(has(help.out, "pixi"));
    CHECK(has(help.out, "recipe.yaml"));
}

TEST_CASE("a usage error under --json prints one JSON error document on stdout") {
    auto r = sf_run({"rendr", "--json"});
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "unknown command 'rendr'; did you mean 'render'?"));
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
    CHECK(j["ok"] == false);
    CHECK(j["exit_code"] == 2);
    CHECK(has(j["error"]["message"].get<std::string>(), "did you mean 'render'?"));
    r = sf_run({"render", ok_recipe(), "--bogus", "--json"});
    CHECK(r.exit_code == 2);
    REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
    CHECK(j["exit_code"] == 2);
    // The benign twins: no --json, nothing on stdout; a good command, its document.
    CHECK(sf_run({"rendr"}).out.empty());
    r = sf_run({"render", ok_recipe(), "--json"});
    CHECK(r.exit_code == 0);
    REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
}

TEST_CASE("rerender names the flag of a missing config file and says when no pinning was given") {
    fs::TempDir tmp("sf-it-hints");
    const std::string recipe = (test::data_dir() / "feedstock/rerender/perpython/recipe").string();
    auto rerender = [&](std::vector<std::string> extra) {
        std::vector<std::string> a{"rerender", recipe, "--variants-dir", (tmp.path() / "v").string(), "--platform",
                                   "linux-64"};
        a.insert(a.end(), extra.begin(), extra.end());
        return sf_run(a);
    };
    auto r = rerender({"-e", "/nope/cbc.yaml"});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "check the -e path"));
    CHECK_FALSE(has(r.err, "-m path"));
    r = rerender({"-m", "/nope/m.yaml"});
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "check the -m path"));
    CHECK(rerender({}).exit_code == 0);  // the benign twin

    // A feedstock whose migration extends python, which only the pinning holds.
    const stdfs::path cases = test::data_dir() / "feedstock/rerender-v1-extra/cases/petsc4py";
    const stdfs::path feedstock = tmp.path() / "feedstock";
    stdfs::copy(cases / "feedstock", feedstock, stdfs::copy_options::recursive);
    auto smithy = [&](std::vector<std::string> extra) {
        std::vector<std::string> a{"rerender", feedstock.string(), "--platform", "linux-64"};
        a.insert(a.end(), extra.begin(), extra.end());
        return sf_run(a);
    };
    r = smithy({});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "no global pinning given; key_add migration: 'python'"));
    CHECK(has(r.err, "pass -e"));
    // A pinning given that lacks the key: the old words, no claim about -e.
    REQUIRE(fs::write_file_atomic(tmp.path() / "thin.yaml", "c_stdlib:\n  - sysroot\n"));
    r = smithy({"-e", (tmp.path() / "thin.yaml").string()});
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "'python' is not in the pinning"));
    CHECK_FALSE(has(r.err, "no global pinning given"));
    r = smithy({"-e", (cases / "pinning/conda_build_config.yaml").string()});  // the benign twin
    INFO(r.err);
    CHECK(r.exit_code == 0);
}
