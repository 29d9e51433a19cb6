#include <catch2/catch.hpp>

#include "jinja/value.hpp"

using namespace sf::jinja;

TEST_CASE("Value::str formats like Python str()") {
    SECTION("scalars") {
        CHECK(Value(None{}).str() == "None");
        CHECK(Value(true).str() == "True");
        CHECK(Value(false).str() == "False");
        CHECK(Value(42).str() == "42");
        CHECK(Value(-7).str() == "-7");
        CHECK(Value("text").str() == "text");
        CHECK(Value(Undefined{"x"}).str().empty());
    }
    SECTION("floats use the shortest round-trip repr") {
        CHECK(Value(3.0).str() == "3.0");
        CHECK(Value(0.1).str() == "0.1");
        CHECK(Value(3.5).str() == "3.5");
        CHECK(Value(-2.25).str() == "-2.25");
        CHECK(Value(1e-5).str() == "1e-05");
        CHECK(Value(0.0001).str() == "0.0001");
        CHECK(Value(1e16).str() == "1e+16");
        CHECK(Value(1e15).str() == "1000000000000000.0");
        CHECK(Value(123456.789).str() == "123456.789");
        CHECK(Value(1.0 / 3).str() == "0.3333333333333333");
        CHECK(Value(2.5e-10).str() == "2.5e-10");
    }
    SECTION("containers use repr for items") {
        CHECK(Value(List{"a", 1, 2.0, None{}, true}).str() == "['a', 1, 2.0, None, True]");
        CHECK(Value(Dict{{"k", "v"}, {"n", List{}}}).str() == "{'k': 'v', 'n': []}");
        CHECK(Value(List{}).str() == "[]");
    }
}

TEST_CASE("Value::repr quotes strings like Python") {
    SECTION("plain") { CHECK(Value("a").repr() == "'a'"); }
    SECTION("single quote inside") { CHECK(Value("it's").repr() == "\"it's\""); }
    SECTION("both quotes") { CHECK(Value("a'b\"c").repr() == "'a\\'b\"c'"); }
    SECTION("escapes") { CHECK(Value("a\nb\\").repr() == "'a\\nb\\\\'"); }
    SECTION("undefined") { CHECK(Value(Undefined{"x"}).repr() == "Undefined"); }
}

TEST_CASE("Value::truthy follows Python") {
    CHECK_FALSE(Value(None{}).truthy());
    CHECK_FALSE(Value(Undefined{}).truthy());
    CHECK_FALSE(Value(0).truthy());
    CHECK_FALSE(Value(0.0).truthy());
    CHECK_FALSE(Value("").truthy());
    CHECK_FALSE(Value(List{}).truthy());
    CHECK_FALSE(Value(Dict{}).truthy());
    CHECK(Value(1).truthy());
    CHECK(Value("0").truthy());
    CHECK(Value(List{0}).truthy());
}

TEST_CASE("Value::equals treats 1 == 1.0 == True") {
    CHECK(Value(1).equals(Value(1.0)));
    CHECK(Value(1).equals(Value(true)));
    CHECK_FALSE(Value("1").equals(Value(1)));
    CHECK(Value(List{1, "a"}).equals(Value(List{1.0, "a"})));
    CHECK(Value(Dict{{"a", 1}, {"b", 2}}).equals(Value(Dict{{"b", 2}, {"a", 1}})));
    CHECK_FALSE(Value(Dict{{"a", 1}}).equals(Value(Dict{{"a", 2}})));
    CHECK(Value(None{}).equals(Value(None{})));
}

TEST_CASE("Value::get and type_name") {
    Value d = Dict{{"k", 1}};
    REQUIRE(d.get("k") != nullptr);
    CHECK(d.get("k")->as_int() == 1);
    CHECK(d.get("missing") == nullptr);
    CHECK(Value(1).get("k") == nullptr);
    CHECK(std::string(Value("s").type_name()) == "str");
    CHECK(std::string(Value(None{}).type_name()) == "NoneType");
    CHECK(std::string(Value(List{}).type_name()) == "list");
    CHECK(std::string(Value(1.5).type_name()) == "float");
}
