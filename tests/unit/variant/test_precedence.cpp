// Variant-file precedence, checked against conda-build 24.11.2's answers
// recorded in tests/data/variant/precedence/cases.json (peer_table.py
// records and re-checks them with ../shared/peer's conda-build): -e files,
// then the recipe's conda_build_config.yaml, then each -m file, then
// --variant; a later list replaces an earlier one key by key, zip groups
// kept consistent. splitforge once intersected them (an -m superset of the
// recipe's list gave only the values both name).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "process/process.hpp"  // links the process stage, for testproc.hpp
#include "testproc.hpp"
#include "testskip.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "variant/config.hpp"
#include "variant/selection.hpp"

using namespace sf::variant;
namespace stdfs = std::filesystem;

namespace {

using Rows = std::vector<std::vector<std::string>>;

nlohmann::json cases() {
    return nlohmann::json::parse(sf::test::slurp(sf::test::data_dir() / "variant/precedence/cases.json"));
}

// Writes one case's files under `root` and renders its matrix as conda-build
// would for meta.yaml: the distinct rows of its keys, sorted; nullopt for an error.
std::optional<Rows> run_case(const nlohmann::json& c, const stdfs::path& root) {
    auto write = [](const stdfs::path& p, const std::string& text) {
        stdfs::create_directories(p.parent_path());
        REQUIRE(sf::fs::write_file_atomic(p, text));
    };
    std::vector<stdfs::path> e, m;
    for (size_t i = 0; i < c.value("e", nlohmann::json::array()).size(); ++i)
        write(e.emplace_back(root / ("e" + std::to_string(i)) / "conda_build_config.yaml"), c["e"][i]);
    for (size_t i = 0; i < c.value("m", nlohmann::json::array()).size(); ++i)
        write(m.emplace_back(root / ("m" + std::to_string(i)) / "v.yaml"), c["m"][i]);
    std::optional<stdfs::path> recipe;
    if (c.contains("recipe")) write(*(recipe = root / "recipe" / "conda_build_config.yaml"), c["recipe"]);
    std::vector<std::string> overrides;
    const nlohmann::json variant = c.value("variant", nlohmann::json::object());
    for (const auto& [k, v] : variant.items()) {
        std::vector<std::string> vs;
        if (v.is_array()) for (const auto& x : v) vs.push_back(x);
        else vs.push_back(v);
        std::string joined;
        for (const auto& x : vs) joined += (joined.empty() ? "" : ",") + x;
        overrides.push_back(k + "=" + joined);
    }
    auto sel = select("linux-64", m, overrides, e);
    REQUIRE(sel);
    auto spec = load(*sel, recipe);
    if (!spec) return std::nullopt;
    Rows rows;
    for (const auto& v : explode(*spec)) {
        std::vector<std::string> row;
        for (const auto& k : c["keys"]) row.push_back(v.value_or(k, "?"));
        if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

}  // namespace

TEST_CASE("variant precedence: -e, the recipe's file, -m files and --variant as conda-build 24.11.2 combines them",
          "[variant][precedence]") {
    auto doc = cases();
    REQUIRE(doc["cases"].size() >= 16);
    sf::fs::TempDir tmp("sf-precedence");
    int n = 0;
    for (const auto& c : doc["cases"]) {
        INFO(c["name"].get<std::string>());
        auto got = run_case(c, tmp.path() / std::to_string(n++));
        if (c.value("expect_error", false)) {
            CHECK_FALSE(got);
        } else {
            REQUIRE(got);
            CHECK(*got == c["expect"].get<Rows>());
        }
    }
}

// The first case, spelled out: a -m superset of the recipe's list
// gives every value of the -m file; the benign twin, a subset (what a
// .ci_support file is), still narrows.
TEST_CASE("variant precedence: a -m file replaces the recipe's blas_impl list, it does not intersect it",
          "[variant][precedence]") {
    sf::fs::TempDir tmp("sf-precedence-blas");
    nlohmann::json superset = {{"keys", {"blas_impl"}},
                               {"recipe", "blas_impl:\n  - generic\n  - mkl\n"},
                               {"m", {"blas_impl:\n  - openblas\n  - mkl\n  - blis\n"}}};
    auto got = run_case(superset, tmp.path() / "a");
    REQUIRE(got);
    CHECK(*got == Rows{{"blis"}, {"mkl"}, {"openblas"}});
    nlohmann::json subset = superset;
    subset["m"] = {"blas_impl:\n  - mkl\n"};
    auto narrowed = run_case(subset, tmp.path() / "b");
    REQUIRE(narrowed);
    CHECK(*narrowed == Rows{{"mkl"}});
}

// The recorded answers again, from the reference conda-build itself where
// ../shared/peer is installed (PEER=DIR, default /tmp/peer).
TEST_CASE("variant precedence: the recorded table is what the reference conda-build gives", "[variant][precedence][peer]") {
    const char* env = std::getenv("PEER");
    stdfs::path peer = env && *env ? env : "/tmp/peer";
    if (!stdfs::exists(peer / "venv/bin/python")) sf::test::skip("no peer conda-build at " + peer.string() + " (PEER=DIR)");
    // peer_table.py exits 1 and names each case that differs.
    std::string out = sf::test::run_ok({(peer / "venv/bin/python").string(),
                                        (sf::test::data_dir() / "variant/precedence/peer_table.py").string(),
                                        (sf::test::data_dir() / "variant/precedence/cases.json").string()});
    CHECK(out.find(" 0 failed") != std::string::npos);
}

// recipe.yaml: rattler-build's VariantConfig::from_files merges the files in
// order and a later file's key replaces the earlier list (merge: the
// variants map extended), so a -m superset there gives all its values too.
TEST_CASE("variant precedence: recipe.yaml's variants.yaml is replaced by a -m file, as rattler-build merges",
          "[variant][precedence]") {
    sf::fs::TempDir tmp("sf-precedence-v1");
    auto recipe_cfg = tmp.path() / "variants.yaml";
    auto m = tmp.path() / "ci.yaml";
    REQUIRE(sf::fs::write_file_atomic(recipe_cfg, "blas_impl:\n  - generic\n  - mkl\nc:\n  - x\n"));
    REQUIRE(sf::fs::write_file_atomic(m, "blas_impl:\n  - openblas\n  - mkl\n  - blis\n"));
    auto sel = select("linux-64", {m}, {});
    REQUIRE(sel);
    auto spec = load_v1(*sel, recipe_cfg);
    REQUIRE(spec);
    Rows rows;
    for (const auto& v : explode(*spec)) rows.push_back({v.value_or("blas_impl", "?"), v.value_or("c", "?")});
    std::sort(rows.begin(), rows.end());
    CHECK(rows == Rows{{"blis", "x"}, {"mkl", "x"}, {"openblas", "x"}});
}

// pytorch-cpu-feedstock (v2.13.0) with conda-forge's pinning as -e: the
// recipe's conda_build_config.yaml (blas_impl [generic, mkl], read after -e)
// replaces the pinning's [mkl]. conda-build 24.11.2's get_package_variants
// gives 1280 variants, both BLAS among them; splitforge once gave 320, mkl only.
TEST_CASE("variant precedence: pytorch-cpu with the pinning as -e has conda-build's 1280 variants",
          "[variant][precedence]") {
    auto c = sf::test::data_dir() / "feedstock/rerender-pytorch/cases/pytorch-cpu-v2.13.0";
    auto sel = select("linux-64", {}, {}, {c / "pinning/conda_build_config.yaml"});
    REQUIRE(sel);
    auto spec = load(*sel, c / "feedstock/recipe/conda_build_config.yaml");
    INFO((spec ? std::string() : spec.error().str()));
    REQUIRE(spec);
    auto vs = explode(*spec);
    CHECK(vs.size() == 1280);
    std::set<std::string> blas;
    for (const auto& v : vs) blas.insert(v.value_or("blas_impl", "?"));
    CHECK(blas == std::set<std::string>{"generic", "mkl"});
}
