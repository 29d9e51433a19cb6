#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "feedstock/lint.hpp"
#include "feedstock/lint_v1.hpp"
#include "golden.hpp"
#include "recipe/v1_recipe.hpp"
#include "testskip.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
using namespace sf::feedstock;
namespace stdfs = std::filesystem;

namespace {

std::vector<Finding> run_lint(const stdfs::path& recipe, const std::optional<stdfs::path>& variants = std::nullopt) {
    LintOptions o;
    o.recipe_dir = recipe;
    o.variants_dir = variants;
    auto r = lint(o);
    REQUIRE(r);
    return *r;
}

std::string text_of(const std::vector<Finding>& fs) {
    std::string out;
    for (const auto& f : fs) out += f.str() + "\n";
    return test::relative_to_data(out);
}

}  // namespace

TEST_CASE("lint v1: one of each problem (golden)") {
    auto dir = test::data_dir() / "feedstock/lint-v1/bad";
    REQUIRE(recipe::is_v1_recipe_dir(dir / "recipe"));
    auto found = run_lint(dir / "recipe");
    std::string out = text_of(found);
    test::check_golden(dir / "expected.txt", out);
    CHECK(out.find("unknown field 'noarc' in build (did you mean 'noarch'?") != std::string::npos);
    CHECK(out.find("unknown field 'pip_chek' in python test") != std::string::npos);
    CHECK(out.find("unknown field 'maintainer' in about") != std::string::npos);
    CHECK(out.find("'pyhton' is not defined") != std::string::npos);
    CHECK(out.find("'build_numbr' is not defined") != std::string::npos);
    CHECK(out.find("pin_subpackage('libbadd') names no output of this recipe (did you mean 'libbad'?)") !=
          std::string::npos);
    CHECK(out.find("patches/0002-missing.patch' does not exist") != std::string::npos);
    CHECK(out.find("sha256 '0123456789abcdef' is not 64 hex digits") != std::string::npos);
    CHECK(out.find("url source without sha256") != std::string::npos);
    // What is right is not reported: a name probed with `is not defined`, an
    // upper-case name in a script (the build's environment), a pin of an
    // output named through the context, the present patch.
    CHECK(out.find("'foo'") == std::string::npos);
    CHECK(out.find("'PYTHON'") == std::string::npos);
    CHECK(out.find("pin_subpackage('libbad')") == std::string::npos);
    CHECK(out.find("0001-present") == std::string::npos);
    CHECK(found.size() == 9);
}

TEST_CASE("lint v1: without CI variant files an unknown name is a warning") {
    auto dir = test::data_dir() / "feedstock/lint-v1/bad";
    // An empty variants dir: the pinning's keys cannot be told from typos.
    fs::TempDir tmp("sf-lint-v1");
    auto found = run_lint(dir / "recipe", tmp.path());
    int undefined_warnings = 0;
    for (const auto& f : found) undefined_warnings += f.id == "undefined-variable" && f.severity == Severity::warning;
    CHECK(undefined_warnings == 3);  // pyhton, build_numbr, cuda_compiler_version
}

TEST_CASE("lint v1: a missing --variants-dir is an error") {
    LintOptions o;
    o.recipe_dir = test::data_dir() / "feedstock/lint-v1/bad/recipe";
    o.variants_dir = test::data_dir() / "feedstock/lint-v1/no-such-dir";
    auto r = lint(o);
    REQUIRE(!r);
    CHECK(r.error().message == "variants directory does not exist");
}

TEST_CASE("lint v1: no findings on the corpus feedstocks") {
    auto golden = test::shared_dir() / "golden-v1/recipes";
    auto rerender = test::shared_dir() / "rerender-v1/cases";
    if (!stdfs::is_directory(golden) || !stdfs::is_directory(rerender))
        test::skip("../shared/golden-v1 or ../shared/rerender-v1 is absent");
    int recipes = 0;
    for (const auto& e : stdfs::directory_iterator(golden)) {
        INFO(e.path().string());
        CHECK(text_of(run_lint(e.path() / "recipe")).empty());
        ++recipes;
    }
    // rerender-v1 keeps the generated .ci_support out of the feedstock: lint
    // reads the expected ones.
    for (const auto& e : stdfs::directory_iterator(rerender)) {
        INFO(e.path().string());
        CHECK(text_of(run_lint(e.path() / "feedstock/recipe", e.path() / "expected/.ci_support")).empty());
        ++recipes;
    }
    CHECK(recipes >= 12);
}

TEST_CASE("lint v1: the recipe.yaml twins are clean") {
    CHECK(text_of(run_lint(test::source_dir() / "recipe-v1")).empty());
    CHECK(text_of(run_lint(test::source_dir() / "demo/minitorch/recipe-v1")).empty());
}

TEST_CASE("lint v1: extra/splitforge/lint_skip silences a check") {
    fs::TempDir tmp("sf-lint-v1-skip");
    auto src = test::data_dir() / "feedstock/lint-v1/bad";
    stdfs::copy(src, tmp.path(), stdfs::copy_options::recursive);
    auto text = test::slurp(tmp.path() / "recipe/recipe.yaml");
    REQUIRE(fs::write_file_atomic(tmp.path() / "recipe/recipe.yaml",
                                  text + "extra:\n  splitforge:\n    lint_skip: [unknown-key, bad-checksum]\n"));
    auto found = run_lint(tmp.path() / "recipe");
    for (const auto& f : found) CHECK(f.id != "unknown-key");
    for (const auto& f : found) CHECK(f.id != "bad-checksum");
    CHECK(found.size() == 5);
}

TEST_CASE("lint v1: the keys render refuses are lint errors, from the same table") {
    // Every render snapshot of an unknown key: lint names the same key at the
    // same line, as an error, instead of stopping.
    for (const char* name : {"v1-unknown-build-key", "v1-multi-output-schema", "v1-output-extra", "v1-staging-run",
                             "v1-unknown-source-key", "v1-unknown-step-key", "v1-unknown-test-key",
                             "v1-unknown-requirements-key", "v1-unknown-top-level"}) {
        SECTION(name) {
            auto dir = test::data_dir() / "render/bad" / name;
            auto rendered = recipe::load_v1_recipe(dir);
            REQUIRE_FALSE(rendered);
            auto found = run_lint(dir);
            auto it = std::find_if(found.begin(), found.end(), [](const Finding& f) { return f.id == "unknown-key"; });
            REQUIRE(it != found.end());
            CHECK(it->severity == Severity::error);
            CHECK(it->loc.line == rendered.error().loc.line);
            CHECK(rendered.error().message == it->message);
        }
    }
}

TEST_CASE("lint v1: a key rattler-build reads past is a warning, and render accepts it") {
    fs::TempDir tmp("sf-lint-v1-ignored");
    std::string recipe =
        "package:\n  name: foo\n  version: 1.0\n"
        "tests:\n  - python:\n      imports: [foo]\n    requirements:\n      run: [pytest]\n";
    REQUIRE(fs::write_file_atomic(tmp.path() / "recipe.yaml", recipe));
    REQUIRE(recipe::load_v1_recipe(tmp.path()));
    auto found = run_lint(tmp.path());
    REQUIRE(found.size() == 1);
    CHECK(found[0].id == "ignored-key");
    CHECK(found[0].severity == Severity::warning);
    CHECK(found[0].loc.line == 7);
    CHECK(found[0].message == "field 'requirements' is ignored in python test");
    CHECK(found[0].suggestion == "rattler-build reads only 'python' in a python test");
}
