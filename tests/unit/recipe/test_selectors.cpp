#include <catch2/catch.hpp>

#include "recipe/selectors.hpp"

using namespace sf::recipe;

TEST_CASE("split_selectors: conda-build's selector pattern") {
    auto lines = split_selectors("a: 1  # [linux]\n# a comment\n  - foo [win]\nurl: x  # see [1](y)\n'q: v'  # [osx]\n");
    REQUIRE(lines.size() == 5);
    CHECK(*lines[0].selector == "linux");
    CHECK(lines[0].text == "a: 1");
    CHECK_FALSE(lines[1].selector);
    CHECK(lines[1].text.empty());
    CHECK(*lines[2].selector == "win");  // a selector needs no comment sign
    CHECK_FALSE(lines[3].selector);      // markdown links after a comment are not selectors
    CHECK(lines[4].text == "'q: v'");
}

TEST_CASE("selector namespace: flags, py as an int, variant values converted") {
    auto ns = selector_namespace("osx-arm64", "osx-arm64",
                                 {{"python", "3.12.* *_cpython"}, {"megabuild", "true"}, {"cuda_major", "12"}, {"blas_impl", "mkl"}});
    auto eval = [&](const char* e) {
        auto v = sf::jinja::evaluate(e, {"t", 1, 1}, ns);
        REQUIRE(v);
        return v->truthy();
    };
    CHECK(eval("osx and arm64 and unix"));
    CHECK_FALSE(eval("linux or win or x86_64"));
    CHECK(eval("py == 312 and py3k"));
    CHECK(eval("megabuild"));
    CHECK(eval("cuda_major >= 12"));
    CHECK(eval("blas_impl == 'mkl'"));
    CHECK(eval("target_platform is undefined or true"));
}

TEST_CASE("apply_selectors: an unknown name is an error at file:line:col") {
    auto lines = split_selectors("a: 1\nb: 2  # [linx]\n");
    auto r = apply_selectors(lines, selector_namespace("linux-64", "linux-64", {}), "meta.yaml");
    REQUIRE_FALSE(r);
    CHECK(r.error().str().rfind("meta.yaml:2:", 0) == 0);
    CHECK(r.error().message.find("'linx'") != std::string::npos);
}
