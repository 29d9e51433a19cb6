#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "feedstock/lint.hpp"
#include "golden.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
using namespace sf::feedstock;
namespace stdfs = std::filesystem;

namespace {

std::string lint_text(const std::filesystem::path& recipe, bool strict = false) {
    LintOptions o;
    o.recipe_dir = recipe;
    o.strict = strict;
    auto r = lint(o);
    REQUIRE(r);
    std::string out;
    for (const auto& f : *r) out += f.str() + "\n";
    return test::relative_to_data(out);
}

int errors(const std::filesystem::path& recipe, bool strict = false) {
    LintOptions o;
    o.recipe_dir = recipe;
    o.strict = strict;
    auto r = lint(o);
    REQUIRE(r);
    int n = 0;
    for (const auto& f : *r) n += f.severity == Severity::error;
    return n;
}

}  // namespace

TEST_CASE("lint: one of each problem (golden)") {
    auto dir = test::data_dir() / "feedstock/lint/bad";
    std::string out = lint_text(dir / "recipe");
    test::check_golden(dir / "expected.txt", out);
    CHECK(out.find("variant key 'blas_impl' is not used") != std::string::npos);
    CHECK(out.find("no sha256") != std::string::npos);
    CHECK(out.find("0002-missing.patch' is listed but missing") != std::string::npos);
    CHECK(out.find("0003-unlisted.patch: warning: patch is not listed") != std::string::npos);
    CHECK(out.find("output 'bad-py' has no test") != std::string::npos);
    CHECK(out.find("pin_subpackage('libbadd') names no output of this recipe (did you mean 'libbad'?)") !=
          std::string::npos);
    CHECK(out.find("key 'python' is used by the recipe but missing from this variant file") != std::string::npos);
    CHECK(out.find("variant key 'foo' is not used") != std::string::npos);
    CHECK(out.find("libarrow_all") == std::string::npos);  // a "*" guard is no unused key
    CHECK(errors(dir / "recipe") == 4);
}

TEST_CASE("lint: a key used by the recipe but missing from the variants (golden)") {
    auto dir = test::data_dir() / "feedstock/lint/undefined";
    // conda-build reads the unknown name as False: a warning, an error under --strict.
    test::check_golden(dir / "expected.txt", lint_text(dir / "recipe"));
    CHECK(errors(dir / "recipe") == 0);
    test::check_golden(dir / "expected-strict.txt", lint_text(dir / "recipe", true));
    CHECK(errors(dir / "recipe", true) == 1);
}

TEST_CASE("lint: good recipes are clean") {
    CHECK(lint_text(test::source_dir() / "demo/minitorch/recipe").empty());
    CHECK(lint_text(test::data_dir() / "feedstock/rerender/perpython/recipe").empty());
}

TEST_CASE("lint: bad input") {
    LintOptions o;
    o.recipe_dir = test::data_dir() / "feedstock/lint/nope";
    auto r = lint(o);
    REQUIRE(!r);
    CHECK(r.error().message == "recipe directory not found");
    o.recipe_dir = test::data_dir() / "feedstock/lint/bad/recipe";
    o.variants_dir = test::data_dir() / "feedstock/lint/no-variants";
    auto v = lint(o);
    REQUIRE(!v);
    CHECK(v.error().message == "variants directory does not exist");
}

TEST_CASE("Finding::str is file:line: severity: message (suggestion)") {
    Finding f{SourceLoc{"recipe/meta.yaml", 12}, Severity::warning, "output 'x' has no test", "add one"};
    CHECK(f.str() == "recipe/meta.yaml:12: warning: output 'x' has no test (add one)");
}

TEST_CASE("lint: CI files for platforms outside the default list are linted, not called stale") {
    fs::TempDir tmp("sf-lint");
    stdfs::create_directories(tmp.path() / "recipe");
    stdfs::create_directories(tmp.path() / "variants");
    const std::string meta =
        "package:\n  name: tiny\n  version: 1.0\nbuild:\n  number: 0\n  skip: true  # [s390x]\n"
        "requirements:\n  build:\n    - {{ compiler('c') }}\ntest:\n  commands:\n    - true\n";
    REQUIRE(fs::write_file_atomic(tmp.path() / "recipe/meta.yaml", meta));
    for (const char* p : {"linux-64", "linux-ppc64le", "linux-riscv64", "win-arm64", "linux-s390x"}) {
        std::string name = p;
        std::replace(name.begin(), name.end(), '-', '_');
        REQUIRE(fs::write_file_atomic(tmp.path() / "variants" / (name + "_.yaml"),
                                      std::string("c_compiler:\n- gcc\ntarget_platform:\n- ") + p + "\n"));
    }
    LintOptions o;
    o.recipe_dir = tmp.path() / "recipe";
    auto r = lint(o);
    REQUIRE(r);
    std::vector<std::string> stale;
    for (const auto& f : *r)
        if (f.id == std::string("stale-variant-file")) stale.push_back(f.message);
    // s390x is skipped by the recipe: its file is stale; the others are not.
    CHECK(stale == std::vector<std::string>{"the recipe builds nothing for linux-s390x"});
}

// pyyaml-feedstock (96ccf42b): conda-smithy wrote its .ci_support files by its
// own rules, which keep python_min in every job of a recipe naming
// `{{ python_min }}`, here only on `# [use_noarch]` lines that linux-aarch64
// does not select. Our variants/ files follow conda-build's render instead.
TEST_CASE("lint: conda-smithy's .ci_support files are judged by conda-smithy's rules") {
    fs::TempDir tmp("sf-lint");
    const std::string meta =
        "package:\n  name: tiny\n  version: 1.0\nsource:\n  path: .\n  patches:\n    - patches/old.patch  # [py<39]\n"
        "    # - patches/gone.patch\n"
        "build:\n  number: 0\n  noarch: python  # [use_noarch]\nrequirements:\n  host:\n    - python  # [not use_noarch]\n"
        "    - python {{ python_min }}.*  # [use_noarch]\n  run:\n    - python\ntest:\n  commands:\n    - true\n";
    for (const char* dir : {"recipe/patches", ".ci_support", "variants"}) stdfs::create_directories(tmp.path() / dir);
    REQUIRE(fs::write_file_atomic(tmp.path() / "recipe/meta.yaml", meta));
    REQUIRE(fs::write_file_atomic(tmp.path() / "recipe/patches/old.patch", "--- a\n+++ b\n"));
    // Named in a comment only: not listed at all.
    REQUIRE(fs::write_file_atomic(tmp.path() / "recipe/patches/gone.patch", "--- a\n+++ b\n"));
    const std::string job =
        "python:\n- 3.12.* *_cpython\npython_min:\n- '3.10'\ntarget_platform:\n- linux-aarch64\nuse_noarch:\n- false\n";
    for (const char* dir : {".ci_support", "variants"})
        REQUIRE(fs::write_file_atomic(tmp.path() / dir / "linux_aarch64_.yaml", job));
    auto findings = [&](const char* dir) {
        LintOptions o;
        o.recipe_dir = tmp.path() / "recipe";
        o.variants_dir = tmp.path() / dir;
        o.platforms = {"linux-aarch64"};
        auto r = lint(o);
        REQUIRE(r);
        std::vector<std::string> out;
        for (const auto& f : *r) out.push_back(f.id + ": " + f.message);
        return out;
    };
    const std::string patch =
        "unlisted-patch: patch is listed in meta.yaml only on lines that no linted platform or variant selects";
    const std::string gone = "unlisted-patch: patch is not listed in meta.yaml";
    CHECK(findings(".ci_support") == std::vector<std::string>{gone, patch});
    CHECK(findings("variants") ==
          std::vector<std::string>{gone, patch,
                                   "unused-key: variant key 'python_min' is not used by the recipe on linux-aarch64"});
}
