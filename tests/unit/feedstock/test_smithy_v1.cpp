// conda-smithy's reduction of a rattler-build (v1) feedstock's outputs
// (smithy_v1.cpp), on hand-made outputs: which keys are used, which make CI
// jobs, and which variants each output contributes. The whole path is
// checked file for file by the rerender-v1 CTest test.
#include <catch2/catch.hpp>

#include "feedstock/forge_config.hpp"
#include "feedstock/smithy.hpp"
#include "feedstock/smithy_detail.hpp"
#include "recipe/v1_recipe.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
using namespace sf::feedstock;
using namespace sf::feedstock::detail;

namespace {

variant::Variant var(std::vector<std::pair<std::string, std::string>> kv) {
    variant::Variant v;
    v.values = std::move(kv);
    return v;
}

// python x blas, python zipped with is_freethreading: 3 x 2 points.
std::vector<variant::Variant> full_matrix() {
    std::vector<variant::Variant> out;
    for (auto [py, ft] : {std::pair{"3.12", "false"}, {"3.13", "false"}, {"3.14", "true"}})
        for (const char* blas : {"openblas", "mkl"})
            out.push_back(var({{"blas", blas}, {"channel_targets", "conda-forge main"}, {"is_freethreading", ft},
                               {"python", py}, {"target_platform", "linux-64"}}));
    return out;
}

render::RenderedOutput output(std::string name, std::map<std::string, std::string> used,
                              types::NoArch noarch = types::NoArch::none) {
    render::RenderedOutput o;
    o.name = std::move(name);
    o.version = "1.0";
    o.build_string = "h0_0";
    o.used = std::move(used);
    o.noarch = noarch;
    return o;
}

void write(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    REQUIRE(fs::write_file_atomic(p, text));
}

// A rattler-build feedstock in `dir` with `recipe_yaml` and `files` (path
// below the feedstock -> text), rerendered for `platform` against `pinning`.
std::map<std::string, std::string> rerender_v1(const std::filesystem::path& dir, const std::string& recipe_yaml,
                                               const std::map<std::string, std::string>& files,
                                               const std::string& pinning, const std::string& platform) {
    write(dir / "conda-forge.yml", "conda_build_tool: rattler-build\n");
    write(dir / "recipe/recipe.yaml", recipe_yaml);
    for (const auto& [p, text] : files) write(dir / p, text);
    write(dir / "pinning/conda_build_config.yaml", pinning);
    SmithyOptions o;
    o.feedstock_dir = dir;
    o.exclusive_files = {dir / "pinning/conda_build_config.yaml"};
    o.platforms = {platform};
    auto res = smithy_configs(o);
    INFO((res ? std::string() : res.error().str()));
    REQUIRE(res);
    std::map<std::string, std::string> out;
    for (const auto& f : res->files) out[f.name] = f.text;
    return out;
}

variant::Specials zipped() {
    variant::Specials sp;
    sp.zip_keys = {{"python", "is_freethreading"}};
    return sp;
}

}  // namespace

TEST_CASE("smithy v1: the job keys are the used keys every output has that vary") {
    render::RenderedRecipe rr;
    // lib uses blas only; py uses python too and pins lib exactly (its name
    // in the used variant, as rattler-build writes a pinned output).
    rr.outputs.push_back(output("lib", {{"blas", "mkl"}, {"target_platform", "linux-64"}}));
    rr.outputs.push_back(output("py-lib", {{"blas", "mkl"}, {"python", "3.13"}, {"lib", "1.0 h0_0"},
                                           {"target_platform", "linux-64"}}));
    Outputs metas = {&rr.outputs[0], &rr.outputs[1]};
    auto k = v1_job_keys(rr, metas, full_matrix(), zipped());
    REQUIRE(k);
    CHECK(k->keys.used == std::set<std::string>{"blas", "python", "target_platform"});
    CHECK(k->keys.top_vars == std::set<std::string>{"blas", "target_platform"});
    CHECK(k->keys.top_loop == std::set<std::string>{"blas"});
    // lib's input variants keep the zip group whole (_reduce_variants): 3 x 2.
    CHECK(k->input_variants.size() == 6);
    // lib contributes its blas=mkl points with every python of the zip; py-lib
    // the one point with python 3.13.
    std::set<std::string> pythons;
    for (const auto& v : k->used_variants) {
        CHECK(v.at("blas") == "mkl");
        pythons.insert(v.at("python"));
    }
    CHECK(pythons == std::set<std::string>{"3.12", "3.13", "3.14"});
    REQUIRE(k->meta_variants.size() == 2);
}

TEST_CASE("smithy v1: an unused key keeps its first value, and noarch drops target_platform") {
    render::RenderedRecipe rr;
    rr.outputs.push_back(output("pure", {{"python", "3.13"}, {"target_platform", "linux-64"}}, types::NoArch::python));
    Outputs metas = {&rr.outputs[0]};
    auto k = v1_job_keys(rr, metas, full_matrix(), zipped());
    REQUIRE(k);
    CHECK(k->keys.used == std::set<std::string>{"python"});
    CHECK(k->keys.top_loop == std::set<std::string>{"python"});
    REQUIRE(k->used_variants.size() == 1);
    CHECK(k->used_variants[0].at("blas") == "openblas");  // not used: the spec's first value
    CHECK(k->used_variants[0].at("is_freethreading") == "false");
}

TEST_CASE("smithy v1: an output whose used value the spec lacks is an error naming it") {
    render::RenderedRecipe rr;
    rr.outputs.push_back(output("odd", {{"blas", "blis"}}));
    Outputs metas = {&rr.outputs[0]};
    auto k = v1_job_keys(rr, metas, full_matrix(), zipped());
    REQUIRE(!k);
    CHECK(k.error().message.find("odd-1.0-h0_0") != std::string::npos);
}

TEST_CASE("smithy v1: conda_build_tool selects the rattler-build path") {
    fs::TempDir tmp("sf-forge-v1");
    REQUIRE(fs::write_file_atomic(tmp.path() / "conda-forge.yml", "conda_build_tool: rattler-build\n"));
    auto cfg = read_forge_config(tmp.path());
    REQUIRE(cfg);
    CHECK(cfg->rattler_build());
    REQUIRE(fs::write_file_atomic(tmp.path() / "conda-forge.yml", "provider: {}\n"));
    CHECK(!read_forge_config(tmp.path())->rattler_build());
}

TEST_CASE("smithy v1: a target rattler-build renders nothing of reads the recipe as written") {
    auto parse = [](const std::string& text) {
        auto r = recipe::parse_v1_recipe(text, "recipe.yaml");
        REQUIRE(r);
        return *r;
    };
    const std::string outputs =
        "outputs:\n  - package:\n      name: a\n    build:\n      skip: [win]\n";
    // Output-level skips only: conda-smithy still gets the recipe itself.
    auto only_outputs = parse("recipe:\n  name: split\n  version: 1.0\n" + outputs);
    auto u = unrendered_output(only_outputs, false);
    REQUIRE(u);
    CHECK(u->dist() == "split-1.0-unrendered_0");
    CHECK(u->used.empty());
    // A top-level skip that holds something: the target is left out.
    CHECK(!unrendered_output(parse("recipe:\n  name: split\n  version: 1.0\nbuild:\n  skip: [win]\n" + outputs), false));
    CHECK(unrendered_output(parse("recipe:\n  name: split\n  version: 1.0\nbuild:\n  skip: []\n" + outputs), false));
    // A noarch recipe where noarch outputs are not built: left out.
    auto noarch = parse("recipe:\n  name: split\n  version: 1.0\nbuild:\n  noarch: python\n" + outputs);
    CHECK(!unrendered_output(noarch, false));
    CHECK(unrendered_output(noarch, true));
}

TEST_CASE("smithy v1: variants.yaml's plain integers are written as integers, conda_build_config.yaml's as strings") {
    // mamba-feedstock: `pybind11_abi: [4, 11]` in variants.yaml, which
    // conda-smithy reads with ruamel (ints stay ints); conda-build's loader
    // makes every number of conda_build_config.yaml a string.
    const std::string recipe = "package:\n  name: foo\n  version: 1.0\nrequirements:\n  host:\n"
                               "    - pybind11-abi ==${{ pybind11_abi }}\n    - zlib\n";
    const std::string pinning = "pybind11_abi:\n  - 4\nzlib:\n  - 1.3\n";
    const std::string values = "pybind11_abi:\n  - 4\n  - 11\n";
    fs::TempDir tmp("sf-smithy-ints");
    auto typed = rerender_v1(tmp.path() / "a", recipe, {{"recipe/variants.yaml", values}}, pinning, "linux_64");
    REQUIRE(typed.count("linux_64_pybind11_abi11.yaml"));
    CHECK(typed["linux_64_pybind11_abi11.yaml"].find("pybind11_abi:\n- 11\n") != std::string::npos);
    CHECK(typed["linux_64_pybind11_abi11.yaml"].find("zlib:\n- '1.3'\n") != std::string::npos);
    auto text = rerender_v1(tmp.path() / "b", recipe, {{"recipe/conda_build_config.yaml", values}}, pinning, "linux_64");
    REQUIRE(text.count("linux_64_pybind11_abi11.yaml"));
    CHECK(text["linux_64_pybind11_abi11.yaml"].find("pybind11_abi:\n- '11'\n") != std::string::npos);
}

TEST_CASE("smithy v1: on osx MACOSX_SDK_VERSION follows c_stdlib_version, used by the recipe or not") {
    // yaml-feedstock: no stdlib('c') in the recipe, yet conda-smithy's
    // _merge_deployment_target sees the pinning's c_stdlib_version in every
    // package variant (compat restores unused keys at their first value).
    const std::string recipe = "package:\n  name: foo\n  version: 1.0\nrequirements:\n  host:\n    - zlib\n";
    const std::string pinning = "c_stdlib_version:     # [unix]\n  - 2.17              # [linux]\n"
                                "  - 10.13             # [osx and x86_64]\n"
                                "MACOSX_DEPLOYMENT_TARGET:  # [osx]\n  - 10.13             # [osx and x86_64]\n"
                                "zlib:\n  - 1.3\n";
    fs::TempDir tmp("sf-smithy-sdk");
    auto files = rerender_v1(tmp.path(), recipe, {}, pinning, "osx_64");
    REQUIRE(files.count("osx_64_.yaml"));
    const std::string& t = files["osx_64_.yaml"];
    CHECK(t.find("MACOSX_SDK_VERSION:\n- '10.13'\n") != std::string::npos);
    CHECK(t.find("MACOSX_DEPLOYMENT_TARGET:\n- '10.13'\n") != std::string::npos);
    CHECK(t.find("c_stdlib_version") == std::string::npos);  // unused: not written
}
