#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "feedstock/recipe_extra.hpp"
#include "feedstock/rerender.hpp"
#include "golden.hpp"
#include "render/format.hpp"
#include "render/render.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
using namespace sf::feedstock;
namespace stdfs = std::filesystem;

namespace {

stdfs::path minitorch() { return test::source_dir() / "demo/minitorch/recipe"; }
stdfs::path perpython() { return test::data_dir() / "feedstock/rerender/perpython/recipe"; }

std::set<std::string> builds(const render::RenderedRecipe& rr) {
    std::set<std::string> s;
    for (const auto& o : rr.outputs) s.insert(o.dist());
    return s;
}

}  // namespace

TEST_CASE("rerender: the minitorch megabuild keeps every Python in one job per platform") {
    RerenderOptions o;
    o.recipe_dir = minitorch();
    auto res = plan_jobs(o);
    REQUIRE(res);
    CHECK(res->skipped == std::vector<std::string>{"osx-64", "osx-arm64", "win-64"});
    REQUIRE(res->jobs.size() == 8);
    for (const auto& j : res->jobs) {
        INFO(j.name);
        CHECK((j.platform == "linux-64" || j.platform == "linux-aarch64"));
        REQUIRE(j.values("python"));
        CHECK(j.values("python")->size() == 5);
        REQUIRE(j.values("with_magma"));
        CHECK(j.values("with_magma")->size() == 2);  // output-local: never splits
        CHECK(j.name.find("python") == std::string::npos);
        CHECK(j.name.find("with_magma") == std::string::npos);
        CHECK(j.values("target_platform")->at(0) == j.platform);
    }
    CHECK(res->jobs.front().name == "linux_64_blas_implgenericcuda_compiler_version13.0");
}

TEST_CASE("rerender: building each job file reproduces the full matrix, one staging build per job") {
    RerenderOptions o;
    o.recipe_dir = minitorch();
    o.platforms = {"linux-64"};
    fs::TempDir tmp("sf-rr");
    o.variants_dir = tmp.path();
    auto res = rerender(o, RerenderMode::write);
    REQUIRE(res);
    REQUIRE(res->jobs.size() == 4);

    auto all = render::render_dir(minitorch(), *variant::select("linux-64", {}, {}));
    REQUIRE(all);
    std::set<std::string> from_jobs;
    for (const auto& j : res->jobs) {
        auto rr = render::render_dir(minitorch(), *variant::select("linux-64", {tmp.path() / (j.name + ".yaml")}, {}));
        REQUIRE(rr);
        INFO(j.name);
        CHECK(rr->tops.size() == 1);
        for (const auto& [k, v] : j.split) CHECK(rr->tops[0].variant.value_or(k, "?") == v);
        auto b = builds(*rr);
        from_jobs.insert(b.begin(), b.end());
    }
    CHECK(from_jobs == builds(*all));
}

TEST_CASE("rerender: per-Python jobs off Linux, zip_keys, runners and timeouts (golden)") {
    RerenderOptions o;
    o.recipe_dir = perpython();
    fs::TempDir tmp("sf-rr");
    o.variants_dir = tmp.path() / "variants";
    auto res = rerender(o, RerenderMode::write);
    REQUIRE(res);
    CHECK(res->skipped == std::vector<std::string>{"win-64"});
    std::vector<std::string> names;
    for (const auto& j : res->jobs) names.push_back(j.name);
    CHECK(names == std::vector<std::string>{
                       "linux_64_blas_implgeneric", "linux_64_blas_implmkl", "linux_aarch64_",
                       "osx_64_blas_implgenericpython3.11.____cpython", "osx_64_blas_implgenericpython3.12.____cpython",
                       "osx_64_blas_implmklpython3.11.____cpython", "osx_64_blas_implmklpython3.12.____cpython",
                       "osx_arm64_python3.11.____cpython", "osx_arm64_python3.12.____cpython"});
    for (const auto& j : res->jobs) {
        auto text = fs::read_file(o.variants_dir / (j.name + ".yaml"));
        REQUIRE(text);
        test::check_golden(test::data_dir() / "feedstock/rerender/perpython/expected" / (j.name + ".yaml"), *text);
    }
    const auto& osx = res->jobs[7];
    CHECK(osx.runner == "macos-14-xlarge");  // github_actions_labels in the cbc wins
    CHECK(osx.timeout_minutes == 240);
    CHECK(*osx.values("numpy") == std::vector<std::string>{"1.26"});  // zipped with python 3.11
    CHECK(osx.zip_keys == std::vector<std::vector<std::string>>{{"python", "numpy"}});
    CHECK(res->jobs[0].runner == "cirun-large-cpu");
    CHECK(res->jobs[0].timeout_minutes == 900);
    CHECK(res->jobs[0].values("python")->size() == 2);
}

TEST_CASE("rerender: deterministic, --check finds stale, missing and extra files") {
    RerenderOptions o;
    o.recipe_dir = perpython();
    o.platforms = {"linux-64", "osx-arm64"};
    fs::TempDir tmp("sf-rr");
    o.variants_dir = tmp.path();
    auto first = rerender(o, RerenderMode::write);
    REQUIRE(first);
    CHECK(first->written.size() == 4);
    auto again = rerender(o, RerenderMode::write);
    REQUIRE(again);
    CHECK(again->written.empty());
    CHECK(again->unchanged.size() == 4);
    auto clean = rerender(o, RerenderMode::check);
    REQUIRE(clean);
    CHECK(clean->up_to_date());

    const auto stale = tmp.path() / "linux_64_blas_implgeneric.yaml";
    REQUIRE(fs::write_file_atomic(stale, "# hand edited\n"));
    stdfs::remove(tmp.path() / "osx_arm64_python3.12.____cpython.yaml");
    REQUIRE(fs::write_file_atomic(tmp.path() / "linux_64_old.yaml", "# Generated by `splitforge rerender`; x\n"));
    REQUIRE(fs::write_file_atomic(tmp.path() / "linux_64_mine.yaml", "target_platform: [linux-64]\n"));
    // Another platform's file: --platform leaves it alone, even generated.
    REQUIRE(fs::write_file_atomic(tmp.path() / "win_64_.yaml", "# Generated by `splitforge rerender`; x\n"));

    auto check = rerender(o, RerenderMode::check);
    REQUIRE(check);
    CHECK(!check->up_to_date());
    CHECK(check->stale == std::vector<std::string>{"linux_64_blas_implgeneric.yaml"});
    CHECK(check->missing == std::vector<std::string>{"osx_arm64_python3.12.____cpython.yaml"});
    CHECK(check->extra == std::vector<std::string>{"linux_64_mine.yaml", "linux_64_old.yaml"});
    CHECK(test::slurp(stale) == "# hand edited\n");  // check mode writes nothing

    auto fix = rerender(o, RerenderMode::write);
    REQUIRE(fix);
    CHECK(fix->written.size() == 2);
    CHECK(fix->removed == std::vector<std::string>{"linux_64_old.yaml"});
    CHECK(stdfs::exists(tmp.path() / "linux_64_mine.yaml"));  // not ours: kept
    CHECK(!stdfs::exists(tmp.path() / "linux_64_old.yaml"));
    CHECK(stdfs::exists(tmp.path() / "win_64_.yaml"));  // not a platform asked for: kept
}

TEST_CASE("rerender: bad input") {
    RerenderOptions o;
    o.recipe_dir = test::data_dir() / "feedstock/no-such-recipe";
    auto r = plan_jobs(o);
    REQUIRE(!r);
    CHECK(r.error().message == "recipe directory not found");
}

TEST_CASE("CiSettings: <platform>-cuda, then <platform>, then default, then the built-in runner") {
    CiSettings ci;
    ci.runners = {{"linux-64", "cpu-big"}, {"linux-64-cuda", "gpu-big"}, {"default", "generic"}};
    ci.timeouts = {{"linux-64-cuda", 900}};
    CHECK(ci.runner_for("linux-64") == "cpu-big");
    CHECK(ci.runner_for("linux-64", CiSettings::Gpu::cuda) == "gpu-big");
    CHECK(ci.runner_for("osx-64", CiSettings::Gpu::cuda) == "generic");
    CHECK(ci.timeout_for("linux-64", CiSettings::Gpu::cuda) == 900);
    CHECK(ci.timeout_for("linux-64") == kDefaultTimeoutMinutes);
    CiSettings none;
    CHECK(none.runner_for("win-64") == "windows-latest");
}

TEST_CASE("rerender: the recipe.yaml twin of recipe/ gets a job per platform, with its runners") {
    RerenderOptions o;
    o.recipe_dir = test::source_dir() / "recipe-v1";
    auto r = plan_jobs(o);
    REQUIRE(r);
    std::set<std::string> platforms;
    for (const auto& j : r->jobs) {
        platforms.insert(j.platform);
        if (j.platform == "linux-aarch64") CHECK(j.runner == "ubuntu-24.04-arm");
        CHECK(j.timeout_minutes == 900);
    }
    CHECK(platforms == std::set<std::string>{"linux-64", "linux-aarch64", "osx-64", "osx-arm64", "win-64"});
    // One job per staging build: the staging output reads blas_impl and
    // cuda_compiler_version (through the context), never python, so every
    // platform megabuilds (the v0 recipe does so on linux only).
    std::set<std::string> linux64;
    for (const auto& j : r->jobs)
        if (j.platform == "linux-64") linux64.insert(j.name);
    CHECK(linux64 == std::set<std::string>{"linux_64_blas_implgenericcuda_compiler_version12.6",
                                           "linux_64_blas_implgenericcuda_compiler_versionNone",
                                           "linux_64_blas_implmklcuda_compiler_version12.6",
                                           "linux_64_blas_implmklcuda_compiler_versionNone"});
    for (const auto& j : r->jobs)
        if (j.platform == "osx-arm64") CHECK(j.name == "osx_arm64_");
    CHECK(r->jobs.size() == 13);
}
