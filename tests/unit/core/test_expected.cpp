// core/expected: Expected<T, E>, Expected<void, E>, unexpected(); and the
// Result/fail helpers core/error.hpp builds on them.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/expected.hpp"

using namespace sf;

namespace {

Expected<int, std::string> parse_digit(char c) {
    if (c < '0' || c > '9') return unexpected(std::string("not a digit: ") + c);
    return c - '0';
}

Expected<void, std::string> check_positive(int v) {
    if (v <= 0) return unexpected("not positive");
    return {};
}

}  // namespace

TEST_CASE("Expected<T, E> holding a value") {
    SECTION("has_value, bool, value, * and ->") {
        Expected<std::string, int> e(std::string("abc"));
        CHECK(e.has_value());
        CHECK(static_cast<bool>(e));
        CHECK(e.value() == "abc");
        CHECK(*e == "abc");
        CHECK(e->size() == 3);
    }
    SECTION("from a function's return") {
        auto r = parse_digit('7');
        REQUIRE(r);
        CHECK(*r == 7);
    }
    SECTION("a value that is itself empty or zero is still a value") {
        Expected<std::string, std::string> s(std::string{});
        CHECK(s.has_value());
        CHECK(s->empty());
        Expected<int, int> z(0);
        CHECK(z.has_value());
        CHECK(*z == 0);
    }
    SECTION("mutable access changes the held value") {
        Expected<std::vector<int>, std::string> e(std::vector<int>{1, 2});
        e->push_back(3);
        e.value().push_back(4);
        (*e)[0] = 9;
        CHECK(*e == std::vector<int>{9, 2, 3, 4});
    }
    SECTION("const access") {
        const Expected<std::string, int> e(std::string("k"));
        CHECK(e.value() == "k");
        CHECK(*e == "k");
        CHECK(e->size() == 1);
        static_assert(std::is_same_v<decltype(e.value()), const std::string&>);
    }
    SECTION("rvalue value() moves out (move-only types work)") {
        Expected<std::unique_ptr<int>, std::string> e(std::make_unique<int>(5));
        REQUIRE(e);
        std::unique_ptr<int> p = std::move(e).value();
        REQUIRE(p);
        CHECK(*p == 5);
        static_assert(std::is_same_v<decltype(std::move(e).value()), std::unique_ptr<int>&&>);
    }
    SECTION("copies are independent") {
        Expected<std::string, int> a(std::string("x"));
        auto b = a;
        *b += "y";
        CHECK(*a == "x");
        CHECK(*b == "xy");
    }
}

TEST_CASE("Expected<T, E> holding an error") {
    SECTION("from unexpected()") {
        Expected<int, std::string> e = unexpected(std::string("bad"));
        CHECK_FALSE(e.has_value());
        CHECK_FALSE(static_cast<bool>(e));
        CHECK(e.error() == "bad");
    }
    SECTION("from a function's return") {
        auto r = parse_digit('x');
        REQUIRE_FALSE(r);
        CHECK(r.error() == "not a digit: x");
    }
    SECTION("the error converts from a different type (const char* -> std::string)") {
        Expected<int, std::string> e = unexpected("converted");
        REQUIRE_FALSE(e);
        CHECK(e.error() == "converted");
    }
    SECTION("an empty error is still an error") {
        Expected<int, std::string> e = unexpected(std::string{});
        CHECK_FALSE(e.has_value());
        CHECK(e.error().empty());
    }
    SECTION("T and E of the same type stay apart") {
        Expected<std::string, std::string> v(std::string("value"));
        Expected<std::string, std::string> x = unexpected(std::string("error"));
        CHECK(v.has_value());
        CHECK(*v == "value");
        CHECK_FALSE(x.has_value());
        CHECK(x.error() == "error");
    }
    SECTION("the error is mutable through the non-const accessor") {
        Expected<int, std::string> e = unexpected(std::string("a"));
        e.error() += "b";
        CHECK(e.error() == "ab");
    }
    SECTION("move-only errors") {
        Expected<int, std::unique_ptr<int>> e = unexpected(std::make_unique<int>(3));
        REQUIRE_FALSE(e);
        REQUIRE(e.error());
        CHECK(*e.error() == 3);
    }
}

TEST_CASE("Expected<void, E>") {
    SECTION("default is success") {
        Expected<void, std::string> e;
        CHECK(e.has_value());
        CHECK(static_cast<bool>(e));
    }
    SECTION("from a function's `return {}`") { CHECK(check_positive(1)); }
    SECTION("an error") {
        auto r = check_positive(0);
        CHECK_FALSE(r.has_value());
        CHECK_FALSE(static_cast<bool>(r));
        CHECK(r.error() == "not positive");
    }
}

TEST_CASE("unexpected()") {
    SECTION("decays its argument") {
        auto u = unexpected("text");
        static_assert(std::is_same_v<decltype(u), Unexpected<const char*>>);
        CHECK(std::string(u.error) == "text");
        const std::string s = "copy";
        auto v = unexpected(s);
        static_assert(std::is_same_v<decltype(v), Unexpected<std::string>>);
        CHECK(v.error == "copy");
        CHECK(s == "copy");  // copied, not moved from
    }
    SECTION("moves from an rvalue") {
        std::string s(100, 'm');
        auto u = unexpected(std::move(s));
        CHECK(u.error == std::string(100, 'm'));
    }
}

TEST_CASE("Result and fail()") {
    SECTION("fail with a location") {
        Result<int> r = fail(SourceLoc{"meta.yaml", 3, 7}, "bad key", "remove it");
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == "meta.yaml");
        CHECK(r.error().message == "bad key");
        CHECK(r.error().hint == "remove it");
        CHECK(r.error().str() == "meta.yaml:3:7: bad key (remove it)");
    }
    SECTION("fail without a location or hint") {
        Result<void> r = fail("usage");
        REQUIRE_FALSE(r);
        CHECK(r.error().str() == "usage");
    }
    SECTION("Error::str() folds newlines and shows the location it has") {
        CHECK(Error{{"f", 2, 0}, "two\nlines", ""}.str() == "f:2: two lines");
        CHECK(Error{{"f", 0, 5}, "m", "h\r\n"}.str() == "f: m (h  )");
    }
    SECTION("value_or_throw returns the value or throws the error with context") {
        CHECK(value_or_throw(Result<int>(4)) == 4);
        try {
            value_or_throw(Result<int>(fail(SourceLoc{"x.yaml"}, "broken")), "loading");
            FAIL("no exception");
        } catch (const Failure& f) {
            CHECK(f.error().message == "loading: broken");
            CHECK(std::string(f.what()) == "x.yaml: loading: broken");
        }
    }
}
