// meta.yaml's unknown keys and the v0 workflow inside a feedstock (issue 34,
// items 3, 8, 13, 16): render warns about a key outside conda-build's table
// (an error under --strict), lint reports it with a did-you-mean, lint finds
// a feedstock's .ci_support by itself, wheel says what it makes, rerender
// says where its migrations came from.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "testproc.hpp"
#include "util/fs.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const stdfs::path typos = sf::test::data_dir() / "feedstock/v0-typos/recipe";

}  // namespace

TEST_CASE("render warns about meta.yaml keys conda-build does not know, and --strict refuses them") {
    auto r = test::run_splitforge({"render", typos.string(), "--platform", "linux-64"});
    INFO(r.err);
    CHECK(r.rc == 0);
    CHECK(has(r.err, "meta.yaml:6: unknown key 'numbr' in build [v0-unknown-key] (did you mean 'number'?"));
    CHECK(has(r.err, "meta.yaml:8: unknown section 'requirments' [v0-unknown-key] (did you mean 'requirements'?"));
    CHECK(has(r.err, "meta.yaml:13: unknown key 'comands' in test [v0-unknown-key] (did you mean 'commands'?"));
    auto strict = test::run_splitforge({"render", typos.string(), "--platform", "linux-64", "--strict"});
    CHECK(strict.rc == 2);
    CHECK(has(strict.err, "error: "));
    CHECK(has(strict.err, "[v0-unknown-key]"));
    // The benign twin: the golden-local recipes hold no unknown key.
    auto clean = test::run_splitforge({"render", (test::data_dir() / "engine/ok").string(), "--strict"});
    INFO(clean.err);
    CHECK(clean.rc == 0);
    CHECK_FALSE(has(clean.err, "v0-unknown-key"));
}

TEST_CASE("lint reports meta.yaml's unknown keys with a did-you-mean") {
    auto r = test::run_splitforge({"lint", typos.string(), "--platform", "linux-64", "--json"});
    INFO(r.out << r.err);
    auto j = nlohmann::json::parse(r.out);
    std::vector<std::string> got;
    for (const auto& f : j["findings"])
        if (f["id"] == "unknown-key") got.push_back(std::to_string(f["line"].get<int>()) + " " + f["suggestion"].get<std::string>());
    std::sort(got.begin(), got.end());
    CHECK(got == std::vector<std::string>{"13 did you mean 'commands'? conda-build ignores it (--strict makes this an error)",
                                          "6 did you mean 'number'? conda-build ignores it (--strict makes this an error)",
                                          "8 did you mean 'requirements'? conda-build ignores it (--strict makes this an error)"});
}

TEST_CASE("lint inside a conda-forge feedstock reads its .ci_support without being told") {
    fs::TempDir tmp("sf-it-v0keys");
    const stdfs::path c = test::data_dir() / "feedstock/rerender-pytorch/cases/pytorch-cpu-v2.13.0";
    const stdfs::path feedstock = tmp.path() / "pytorch-cpu-feedstock";
    stdfs::copy(c / "feedstock", feedstock, stdfs::copy_options::recursive);
    auto bare = test::run_splitforge({"lint", "recipe", "--json"}, feedstock);
    CHECK(bare.rc == 1);  // the benign twin below differs only by the CI files
    stdfs::copy(c / "expected/.ci_support", feedstock / ".ci_support", stdfs::copy_options::recursive);
    auto r = test::run_splitforge({"lint", "recipe", "--json"}, feedstock);
    INFO(r.out << r.err);
    CHECK(r.rc == 0);
    CHECK_FALSE(has(r.out + r.err, "is undefined"));
    CHECK(nlohmann::json::parse(r.out)["findings"].empty());
}

TEST_CASE("wheel on a folder without the pytorch package says what it makes and from what") {
    fs::TempDir tmp("sf-it-v0keys");
    auto r = test::run_splitforge({"wheel", tmp.path().string(), "-o", (tmp.path() / "out").string()});
    INFO(r.err);
    CHECK(r.rc == 2);
    CHECK(has(r.err, "no 'pytorch' package in the folder: wheel makes PyTorch-shaped pip wheels"));
    CHECK(has(r.err, "from one built 'pytorch' conda package"));
    CHECK_FALSE(stdfs::exists(tmp.path() / "out" / "torch"));
}

TEST_CASE("rerender of a conda-forge feedstock says where its migrations came from") {
    fs::TempDir tmp("sf-it-v0keys");
    const stdfs::path c = test::data_dir() / "feedstock/rerender-v1-extra/cases/petsc4py";
    const stdfs::path feedstock = tmp.path() / "feedstock";
    stdfs::copy(c / "feedstock", feedstock, stdfs::copy_options::recursive);
    auto r = test::run_splitforge({"rerender", feedstock.string(), "--platform", "linux-64", "-e",
                                   (c / "pinning/conda_build_config.yaml").string()});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    CHECK(has(r.out, "\nmigrations: "));
    CHECK(has(r.out, " from " + (feedstock / ".ci_support/migrations").lexically_normal().string()));
}
