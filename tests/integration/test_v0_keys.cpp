// meta.yaml's unknown keys and the v0 workflow inside a feedstock (issue 34,
// items 3, 7, 8, 9, 12, 13, 16): render warns about a key outside conda-build's table
// (an error under --strict), lint reports it with a did-you-mean, lint finds
// a feedstock's .ci_support by itself, wheel says what it makes, rerender
// says where its migrations came from.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "testproc.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

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
    // Each of the feedstock's three files has its pinning copy, which wins.
    CHECK(has(r.out, "\nmigrations: 3 from " + (c / "pinning/share/conda-forge/migrations").lexically_normal().string() + "\n"));
}

TEST_CASE("build --dry-run labels per-python only the outputs made once per Python") {
    const stdfs::path c = test::data_dir() / "feedstock/rerender-pytorch/cases/pytorch-cpu-v2.13.0";
    const std::string cfg =
        (c / "expected/.ci_support/"
             "linux_64_blas_implgenericc_stdlib_version2.17channel_targetsconda-forge_maincuda_compiler_versionNoneis_rcFalse.yaml")
            .string();
    auto r = test::run_splitforge({"build", (c / "feedstock/recipe").string(), "-m", cfg, "--dry-run", "--skip-unavailable"});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    // libtorch's build string has no py tag: one package, whatever the pythons.
    CHECK_FALSE(has(r.out, "libtorch-2.13.0-cpu_generic_h9502bdf_2  [per-python"));
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') > 0);
    for (const auto& line : str::split(r.out, '\n'))
        if (has(line, "  pytorch-2.13.0-cpu_generic_py3")) CHECK(has(line, "[per-python, python 3."));
}

TEST_CASE("staging build labels name only the keys that differ between the builds") {
    fs::TempDir tmp("sf-it-v0keys");
    const stdfs::path recipe = tmp.path() / "recipe";
    stdfs::create_directories(recipe);
    REQUIRE(fs::write_file_atomic(recipe / "meta.yaml",
                                  "package:\n  name: lbl\n  version: 1.0\nbuild:\n  number: 0\n"
                                  "requirements:\n  host:\n    - zlib {{ zlib }}\n    - libpng {{ libpng }}\n"
                                  "    - c_stdlib {{ c_stdlib }}\nabout:\n  license: MIT\n"));
    REQUIRE(fs::write_file_atomic(recipe / "build.sh", "true\n"));
    REQUIRE(fs::write_file_atomic(recipe / "conda_build_config.yaml",
                                  "zlib:\n  - '1.2'\n  - '1.3'\nlibpng:\n  - '1.6'\nc_stdlib:\n  - sysroot\n"));
    auto r = test::run_splitforge({"build", recipe.string(), "--dry-run", "--platform", "linux-64"});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    CHECK(has(r.out, "staging build zlib-1.2\n"));
    CHECK(has(r.out, "staging build zlib-1.3\n"));
    CHECK_FALSE(has(r.out, "libpng-1.6"));
}

TEST_CASE("variants -e PINNING summarises the unused pinning keys, all of them under --verbose and --json") {
    const stdfs::path c = test::data_dir() / "feedstock/rerender-pytorch/cases/pytorch-cpu-v2.13.0";
    const std::string recipe = (c / "feedstock/recipe").string(), pinning = (c / "pinning/conda_build_config.yaml").string();
    auto r = test::run_splitforge({"variants", recipe, "-e", pinning, "--platform", "linux-64"});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    auto at = r.out.find("\nunused keys: ");
    REQUIRE(at != std::string::npos);
    std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
    CHECK(line.size() < 200);
    CHECK(has(line, ", ...; --verbose or --json lists them all)"));
    long count = std::stol(line.substr(std::string("unused keys: ").size()));
    CHECK(count > 100);
    auto j = test::run_splitforge({"variants", recipe, "-e", pinning, "--platform", "linux-64", "--json"});
    REQUIRE(j.rc == 0);
    CHECK(static_cast<long>(nlohmann::json::parse(j.out)["unused_keys"].size()) == count);
    auto v = test::run_splitforge({"variants", recipe, "-e", pinning, "--platform", "linux-64", "--verbose"});
    REQUIRE(v.rc == 0);
    auto vat = v.out.find("\nunused keys: ");
    std::string all = v.out.substr(vat + 1, v.out.find('\n', vat + 1) - vat - 1);
    CHECK(static_cast<long>(std::count(all.begin(), all.end(), ',')) == count - 1);
}
