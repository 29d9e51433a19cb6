#include <catch2/catch.hpp>

#include "variant/config.hpp"

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
