#include <catch2/catch.hpp>

#include "variant/used_vars.hpp"

using namespace sf::variant;

TEST_CASE("used keys: conda-build's text rules") {
    UsedVarScanner s({"blas_impl", "python", "cuda_compiler", "cuda_compiler_version", "c_stdlib", "with_magma",
                      "opt_level", "unused"});
    SECTION("a Jinja reference") { CHECK(s.in_text("  - libblas * *{{ blas_impl }}\n", Scan::full).count("blas_impl")); }
    SECTION("an if condition") { CHECK(s.in_text("{% if blas_impl == 'mkl' %}\n", Scan::full).count("blas_impl")); }
    SECTION("a bare requirement, not a pinned one") {
        CHECK(s.in_text("  - python\n", Scan::full).count("python"));
        CHECK_FALSE(s.in_text("  - python 3.12\n", Scan::full).count("python"));
    }
    SECTION("compiler() uses both the compiler and its version") {
        auto u = s.in_text("    - {{ compiler('cuda') }}\n", Scan::full);
        CHECK(u.count("cuda_compiler"));
        CHECK(u.count("cuda_compiler_version"));
    }
    SECTION("stdlib() uses its keys") { CHECK(s.in_text("    - {{ stdlib('c') }}\n", Scan::full).count("c_stdlib")); }
    SECTION("selectors count only in the selector scan") {
        CHECK(s.in_text("  - magma  # [with_magma]\n", Scan::selectors_only).count("with_magma"));
        CHECK_FALSE(s.in_text("  - magma\n", Scan::selectors_only).count("with_magma"));
    }
    SECTION("a Jinja reference through a filter with quotes counts (conda-build 24.11)") {
        CHECK(s.in_text("string: {{ cuda_compiler_version | replace('.', '') }}\n", Scan::full)
                  .count("cuda_compiler_version"));
    }
    SECTION("pin_subpackage('KEY', ...) and pin_compatible('KEY') count") {
        CHECK(s.in_text("    - {{ pin_subpackage('with_magma', max_pin='x') }}\n", Scan::full).count("with_magma"));
        CHECK(s.in_text("    - {{ pin_compatible('with_magma') }}\n", Scan::full).count("with_magma"));
    }
    SECTION("{% set %} right-hand sides and {% for %} sequences count; {%- forms do not") {
        CHECK(s.in_text("{% set n = 3 + with_magma|int %}\n", Scan::full).count("with_magma"));
        CHECK(s.in_text("{% for x in with_magma %}\n", Scan::full).count("with_magma"));
        CHECK_FALSE(s.in_text("{%- set n = 3 + with_magma|int %}\n", Scan::full).count("with_magma"));
    }
}

TEST_CASE("used keys: shell scripts, as conda-build scans them") {
    UsedVarScanner s({"with_feature", "opt_level", "with_magma"});
    auto u = s.in_shell_script("echo \"feature ${with_feature} and $opt_level\"\nenv | grep -E '^[hitw]{4}_magma='\n");
    CHECK(u.count("with_feature"));
    CHECK_FALSE(u.count("opt_level"));   // the second $ on the line is not seen
    CHECK_FALSE(u.count("with_magma"));  // the feedstock's well-known trick
    CHECK(s.first_use_in_script("with_feature", "a\nb ${with_feature} \n") == 2);
}

TEST_CASE("used keys: the shell scan by hand agrees with the regex on Python whitespace") {
    UsedVarScanner by_hand({"opt_level"});
    UsedVarScanner by_regex({"opt_level", "not-an-identifier"});  // such a key sends every key to the regex
    for (std::string text : {"x $opt_level\n", "x $opt_level\x1c\n", "x ${\x1fopt_level}\n", "x $\x1copt_level \n",
                             "x $opt_levelx \n", "x ${opt_level|\n"}) {
        INFO(text);
        CHECK(by_hand.in_shell_script(text).count("opt_level") == by_regex.in_shell_script(text).count("opt_level"));
    }
}
