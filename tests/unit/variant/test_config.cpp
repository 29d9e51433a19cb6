#include <catch2/catch.hpp>

#include "util/fs.hpp"
#include "variant/config.hpp"
#include "variant/selection.hpp"

using namespace sf::variant;

namespace {

sf::types::Platform linux64() { return *sf::types::Platform::parse("linux-64"); }
SpecSource src(std::string name, std::vector<std::pair<std::string, std::vector<std::string>>> lists) {
    SpecSource s;
    s.name = std::move(name);
    s.lists = std::move(lists);
    return s;
}
std::vector<std::string> values_of(const std::vector<Variant>& vs, const std::string& key) {
    std::vector<std::string> out;
    for (const auto& v : vs) out.push_back(v.value_or(key, "?"));
    return out;
}
}  // namespace

TEST_CASE("combine + explode: the product over ungrouped keys") {
    auto spec = combine({default_spec(linux64()), src("a.yaml", {{"x", {"1", "2"}}, {"y", {"a", "b", "c"}}})});
    REQUIRE(spec);
    auto vs = explode(*spec);
    CHECK(vs.size() == 6);
}

TEST_CASE("combine + explode: zip_keys vary together") {
    auto spec = combine({default_spec(linux64()),
                         src("a.yaml", {{"python", {"3.10", "3.11"}}, {"numpy", {"1.22", "1.26"}},
                                        {"zip_keys", {std::string("python") + '\x1f' + "numpy"}}})});
    REQUIRE(spec);
    auto vs = explode(*spec);
    REQUIRE(vs.size() == 2);
    CHECK(values_of(vs, "python") == std::vector<std::string>{"3.10", "3.11"});
    CHECK(values_of(vs, "numpy") == std::vector<std::string>{"1.22", "1.26"});
}

TEST_CASE("combine: zipped lists of different lengths are an error naming both keys") {
    auto spec = combine({default_spec(linux64()),
                         src("a.yaml", {{"a", {"1", "2"}}, {"b", {"x"}}, {"zip_keys", {std::string("a") + '\x1f' + "b"}}})});
    REQUIRE_FALSE(spec);
    CHECK(spec.error().message.find("'a'") != std::string::npos);
    CHECK(spec.error().message.find("'b'") != std::string::npos);
}

TEST_CASE("explode: a later file narrows an earlier one, and overrides win") {
    auto spec = combine({default_spec(linux64()), src("cbc.yaml", {{"py", {"3.9", "3.10", "3.11"}}}),
                         src("ci.yaml", {{"py", {"3.10"}}})});
    REQUIRE(spec);
    CHECK(values_of(explode(*spec), "py") == std::vector<std::string>{"3.10"});
}

TEST_CASE("extend_keys merge instead of replacing") {
    auto spec = combine({default_spec(linux64()), src("a.yaml", {{"ignore_version", {"foo"}}}),
                         src("b.yaml", {{"ignore_version", {"bar"}}})});
    REQUIRE(spec);
    CHECK(spec->specials.ignore_version == std::vector<std::string>{"foo", "bar"});
    CHECK(spec->specials.pin_run_as_build.at("python").max_pin == "x.x");
}

TEST_CASE("reduce: unused keys keep their first value, used keys all of theirs") {
    auto spec = combine({default_spec(linux64()), src("a.yaml", {{"x", {"1", "2"}}, {"y", {"a", "b"}}})});
    REQUIRE(spec);
    auto vs = explode(*spec);
    REQUIRE(vs.size() == 4);
    auto reduced = reduce(vs, spec->specials, {"x"});
    CHECK(reduced.size() == 2);
    CHECK(values_of(reduced, "y") == std::vector<std::string>{"a", "a"});
    CHECK(loop_vars(vs, spec->specials, {"x", "pin_run_as_build"}) == std::vector<std::string>{"x"});
}

TEST_CASE("load_v1: each file takes the loader rattler-build picks by its name") {
    sf::fs::TempDir tmp("sf-load-v1");
    auto cbc = tmp.path() / "conda_build_config.yaml";
    auto other = tmp.path() / "linux_64_.yaml";
    REQUIRE(sf::fs::write_file_atomic(cbc, "num:\n  - 3  # note\nflag:\n  - true\nflt:\n  - 3.10\nneg:\n  - -2e-3\n"
                                           "osonly:\n  - a  # [osx]\n"));
    REQUIRE(sf::fs::write_file_atomic(other, "ci:\n  - if: linux\n    then: 7\n    else: 8\nkeep:\n  - b  # [osx]\n"));
    auto sel = select("linux-64", {other}, {});
    REQUIRE(sel);
    auto spec = load_v1(*sel, cbc);
    INFO((spec ? std::string() : spec.error().str()));
    REQUIRE(spec);
    SECTION("conda_build_config.yaml: # [selectors]; a `- <number>` line is a string, the rest serde_yaml's") {
        CHECK(typing_of(*spec, "num", "3") == ScalarTyping::text);
        CHECK(typing_of(*spec, "neg", "-2e-3") == ScalarTyping::text);
        CHECK(typing_of(*spec, "flag", "true") == ScalarTyping::serde_yaml);
        CHECK(spec->get("osonly") == nullptr);
    }
    SECTION("any other name: plain YAML with if: items, its integers typed, a '# [osx]' only a comment") {
        REQUIRE(spec->get("ci"));
        CHECK(*spec->get("ci") == std::vector<std::string>{"7"});
        CHECK(is_plain(*spec, "ci", "7"));
        REQUIRE(spec->get("keep"));
        CHECK(*spec->get("keep") == std::vector<std::string>{"b"});
    }
}

// conda-build's -e replaces its default config files, which recipe.yaml does
// not read; conda-smithy reads the pinning (its -e) under a v1 recipe's
// variants.yaml (configure_feedstock.py: combine_specs of the conda-build
// spec and variants.yaml). So -e is read first, by the loader its name picks.
TEST_CASE("load_v1: -e files come first, under the recipe's file and the -m files") {
    sf::fs::TempDir tmp("sf-load-v1-e");
    std::filesystem::create_directories(tmp.path() / "pin");
    auto pin = tmp.path() / "pin" / "conda_build_config.yaml";
    auto recipe_cfg = tmp.path() / "variants.yaml";
    auto m = tmp.path() / "ci.yaml";
    REQUIRE(sf::fs::write_file_atomic(pin, "a:\n  - 1  # [linux]\n  - 2  # [osx]\nb:\n  - x\nc:\n  - p\nd:\n  - q\n"));
    REQUIRE(sf::fs::write_file_atomic(recipe_cfg, "b:\n  - y\nc:\n  - r\n"));
    REQUIRE(sf::fs::write_file_atomic(m, "c:\n  - s\n"));
    auto sel = select("linux-64", {m}, {}, {pin});
    REQUIRE(sel);
    auto spec = load_v1(*sel, recipe_cfg);
    INFO((spec ? std::string() : spec.error().str()));
    REQUIRE(spec);
    REQUIRE(spec->get("a"));
    CHECK(*spec->get("a") == std::vector<std::string>{"1"});  // its name picks the selector loader
    CHECK(typing_of(*spec, "a", "1") == ScalarTyping::text);     // and its `- 1` is a string there
    CHECK(*spec->get("b") == std::vector<std::string>{"y"});
    CHECK(*spec->get("c") == std::vector<std::string>{"s"});
    CHECK(*spec->get("d") == std::vector<std::string>{"q"});
}
