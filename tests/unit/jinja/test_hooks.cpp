// The two switches recipe.yaml needs (jinja.hpp): Dialect::minijinja and Hooks.
#include <catch2/catch.hpp>

#include <set>

#include "jinja/jinja.hpp"

using namespace sf::jinja;

namespace {

std::string mini_text(const Value& v) {
    if (v.is_bool()) return v.as_bool() ? "true" : "false";
    return v.str();
}

}  // namespace

TEST_CASE("jinja hooks: accessed records the globals evaluation looked up, found or not, and a branch not taken reads nothing") {
    std::set<std::string, std::less<>> seen;
    Context ctx;
    ctx.globals["a"] = 1;
    ctx.hooks.accessed = &seen;
    auto e = Expression::parse("a if b is defined else 2", Origin{"t"});
    REQUIRE(e);
    auto v = e->evaluate(ctx);
    REQUIRE(v);
    CHECK(seen == std::set<std::string, std::less<>>{"b"});
    seen.clear();
    auto f = Expression::parse("a if a is defined else c", Origin{"t"});
    REQUIRE(f);
    REQUIRE(f->evaluate(ctx));
    CHECK(seen == std::set<std::string, std::less<>>{"a"});
}

TEST_CASE("jinja dialect: minijinja's filters parse only in that dialect and run through Hooks::filters") {
    CHECK_FALSE(Expression::parse("v | split('.')", Origin{"t"}));
    auto e = Expression::parse("(v | split('.'))[1]", Origin{"t"}, Dialect::minijinja);
    REQUIRE(e);
    std::map<std::string, Function, std::less<>> filters;
    filters["split"] = [](const List& a, const KwArgs&) -> sf::Result<Value> {
        List out;
        std::string s = a[0].as_string();
        for (size_t p = 0, q; p <= s.size(); p = q + 1) {
            q = s.find(a[1].as_string(), p);
            if (q == std::string::npos) q = s.size();
            out.emplace_back(s.substr(p, q - p));
        }
        return Value(std::move(out));
    };
    Context ctx;
    ctx.globals["v"] = "1.25.3";
    ctx.hooks.filters = &filters;
    auto v = e->evaluate(ctx);
    REQUIRE(v);
    CHECK(v->str() == "25");
}

TEST_CASE("jinja hooks: display decides how ~ prints booleans") {
    auto e = Expression::parse("'a' ~ true", Origin{"t"});
    REQUIRE(e);
    Context ctx;
    CHECK(e->evaluate(ctx)->str() == "aTrue");
    ctx.hooks.display = &mini_text;
    CHECK(e->evaluate(ctx)->str() == "atrue");
}

TEST_CASE("jinja dialect: minijinja's startingwith and endingwith tests parse only in that dialect") {
    CHECK_FALSE(Expression::parse("v is startingwith('3.14')", Origin{"t"}));
    Context ctx;
    ctx.globals["v"] = Value(std::string("3.14.* *_cp314t"));
    auto eval = [&](const char* text) {
        auto e = Expression::parse(text, Origin{"t"}, Dialect::minijinja);
        REQUIRE(e);
        auto v = e->evaluate(ctx);
        REQUIRE(v);
        return v->truthy();
    };
    CHECK(eval("v is startingwith('3.14')"));
    CHECK_FALSE(eval("v is startingwith('3.13')"));
    CHECK(eval("v is endingwith('cp314t')"));
    CHECK(eval("v is not endingwith('cp314')"));
    // Only strings compare: an integer is an error, as minijinja's is.
    ctx.globals["n"] = Value(std::int64_t{314});
    auto e = Expression::parse("n is startingwith('3')", Origin{"t"}, Dialect::minijinja);
    REQUIRE(e);
    CHECK_FALSE(e->evaluate(ctx));
}
