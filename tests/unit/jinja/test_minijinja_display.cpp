// minijinja 2.24's Display and Debug (rattler-build's Cargo.lock pins it):
// each expectation is what minijinja's value/mod.rs and object.rs print, with
// Rust's own float and string formatting underneath.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "jinja/minijinja_display.hpp"

using namespace sf::jinja;
using minijinja::debug;
using minijinja::display;

TEST_CASE("minijinja display: scalars") {
    CHECK(display(Value(Undefined{"x"})).empty());
    CHECK(display(Value(None{})) == "None");  // minijinja 2.22+ prints none as Jinja2 does
    CHECK(display(Value(true)) == "True");
    CHECK(display(Value(false)) == "False");
    CHECK(display(Value(42)) == "42");
    CHECK(display(Value(-7)) == "-7");
    CHECK(display(Value("a \"b\"")) == "a \"b\"");  // top-level strings are raw
}

TEST_CASE("minijinja display: floats as Rust prints them, with .0 when integral") {
    CHECK(display(Value(1.0)) == "1.0");
    CHECK(display(Value(42.4242)) == "42.4242");  // minijinja's test_float_to_string
    CHECK(display(Value(0.1)) == "0.1");
    CHECK(display(Value(2.5)) == "2.5");
    CHECK(display(Value(-0.0)) == "-0.0");
    CHECK(display(Value(1e20)) == "100000000000000000000.0");  // Rust's {} has no exponent
    CHECK(display(Value(1.5e-7)) == "0.00000015");
    CHECK(display(Value(std::numeric_limits<double>::infinity())) == "inf");
    CHECK(display(Value(-std::numeric_limits<double>::infinity())) == "-inf");
    CHECK(display(Value(std::nan(""))) == "NaN");
}

TEST_CASE("minijinja display: lists and maps print their items' debug form") {
    CHECK(display(Value(List{Value(1), Value("a")})) == "[1, \"a\"]");
    CHECK(display(Value(List{Value(1), Value(2), Value(3)})) == "[1, 2, 3]");  // minijinja's own doc example
    CHECK(display(Value(List{})) == "[]");
    CHECK(display(Value(List{Value(None{}), Value(true), Value(false)})) == "[None, True, False]");
    CHECK(display(Value(List{Value(1.0), Value(1e16), Value(1e-5), Value(0.0001)})) == "[1.0, 1e16, 1e-5, 0.0001]");
    CHECK(display(Value(List{Value(Undefined{"u"})})) == "[undefined]");
    CHECK(display(Value(Dict{{"foo", Value(1)}})) == "{\"foo\": 1}");  // minijinja's test_value.rs
    CHECK(display(Value(Dict{{"a", Value(List{Value("x")})}, {"b", Value(None{})}})) == "{\"a\": [\"x\"], \"b\": None}");
    CHECK(display(Value(Dict{})) == "{}");
}

TEST_CASE("minijinja debug: strings in double quotes with Rust's escapes") {
    CHECK(debug(Value("a")) == "\"a\"");
    CHECK(debug(Value("it's")) == "\"it's\"");  // a single quote is not escaped
    CHECK(debug(Value("q\"b\\s")) == "\"q\\\"b\\\\s\"");
    CHECK(debug(Value("t\tn\nr\r")) == "\"t\\tn\\nr\\r\"");
    CHECK(debug(Value(std::string("a\0b", 3))) == "\"a\\0b\"");
    CHECK(debug(Value("\x1b[0m")) == "\"\\u{1b}[0m\"");
    CHECK(debug(Value("caf\xc3\xa9")) == "\"caf\xc3\xa9\"");  // printable non-ASCII stays
    CHECK(debug(Value(-1e16)) == "-1e16");
    CHECK(debug(Value(1.25e-7)) == "1.25e-7");
    CHECK(debug(Value(123456789.0)) == "123456789.0");
}
