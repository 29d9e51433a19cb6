// Undefinedness::at_use: minijinja 2.24's Strict undefined, which rattler-build
// sets (rattler_build_jinja's JinjaConfig). A missing name is a value; using
// it fails at the use, with the place of the operand.
#include <catch2/catch.hpp>

#include <set>

#include "jinja/jinja.hpp"

using namespace sf::jinja;

namespace {

struct AtUse {
    std::set<std::string, std::less<>> seen;
    std::set<std::string, std::less<>> undefined_ok{"takes_undefined"};
    Context ctx;
    AtUse() {
        ctx.undefined = Undefinedness::at_use;
        ctx.hooks.accessed = &seen;
        ctx.hooks.undefined_ok = &undefined_ok;
        ctx.globals["one"] = Value(std::string("1"));
        ctx.globals["takes_undefined"] = Value(Function([](const List& a, const KwArgs&) -> sf::Result<Value> {
            return Value(!a.empty() && a[0].is_undefined());
        }));
        ctx.globals["upper"] = Value(Function([](const List& a, const KwArgs&) -> sf::Result<Value> {
            return Value(a.empty() ? std::string() : a[0].str());
        }));
    }
    sf::Result<Value> eval(const std::string& expr) {
        auto e = Expression::parse(expr, Origin{"recipe.yaml", 3, 5}, Dialect::minijinja);
        REQUIRE(e);
        return e->evaluate(ctx);
    }
    // The error of `expr`, "" when it evaluates.
    std::string error(const std::string& expr) {
        auto v = eval(expr);
        return v ? std::string() : v.error().str();
    }
};

}  // namespace

TEST_CASE("jinja at_use: a missing name can be tested, defaulted, collected and passed to a function that takes it") {
    AtUse t;
    auto check = [&](const std::string& expr, const Value& want) {
        INFO(expr);
        auto v = t.eval(expr);
        INFO((v ? std::string() : v.error().str()));
        REQUIRE(v);
        CHECK(v->repr() == want.repr());
    };
    check("level is defined", Value(false));
    check("level is undefined", Value(true));
    check("level is string", Value(false));
    check("(level | default(1)) == 1", Value(true));
    check("1 if (level | default('1')) == one else 0", Value(std::int64_t(1)));
    check("takes_undefined(level)", Value(true));
    check("[1, 2] | length", Value(std::int64_t(2)));
    auto silent = t.eval("'a' if level is defined");
    REQUIRE(silent);
    CHECK(silent->is_undefined());
    // The name was read: a variant key read this way counts as used.
    CHECK(t.seen.count("level") == 1);
}

TEST_CASE("jinja at_use: using a missing name fails where it is used, with its place") {
    AtUse t;
    // Origin: line 3, column 5; the name starts at column 5 + its offset.
    const std::string at = "recipe.yaml:3:";
    CHECK(t.error("1 if level == \"1\" else 0") ==
          at + "10: 'level' is undefined (set it with '{% set level = ... %}' or provide it as a variable)");
    CHECK(t.error("one != level").find(at + "12: 'level' is undefined") == 0);
    CHECK(t.error("level in ['1']").find(at + "5: 'level' is undefined") == 0);
    CHECK(t.error("'1' in level").find(at + "12: 'level' is undefined") == 0);
    CHECK(t.error("level ~ 'x'").find(at + "5: 'level' is undefined") == 0);
    CHECK(t.error("level + 1").find(at + "5: 'level' is undefined") == 0);
    CHECK(t.error("not level").find(at + "9: 'level' is undefined") == 0);
    CHECK(t.error("level or 1").find(at + "5: 'level' is undefined") == 0);
    CHECK(t.error("1 if level else 2").find(at + "10: 'level' is undefined") == 0);
    CHECK(t.error("level.attr").find(at + "5: 'level' is undefined") == 0);
    CHECK(t.error("level[0]").find(at + "5: 'level' is undefined") == 0);
    CHECK(t.error("level | upper").find(at + "5: 'level' is undefined") == 0);
    CHECK(t.error("upper(level)").find(at + "11: 'level' is undefined") == 0);
    CHECK(t.error("one | default(level)").find(at + "19: 'level' is undefined") == 0);
    // Its value as the whole expression (rattler-build: "undefined variable in expression").
    CHECK(t.error("level").find(at + "5: 'level' is undefined") == 0);
    // The whole expression's value: the error points at the expression.
    CHECK(t.error("2 if one == '2' else level").find(": 'level' is undefined") != std::string::npos);
    // `x if c` with no else is a silent undefined: no error of its own.
    CHECK(t.error("'a' if one == '2'").empty());
}

TEST_CASE("jinja at_use: templates fail on printing a missing name, not on looking it up") {
    Context ctx;
    ctx.undefined = Undefinedness::at_use;
    auto ok = render("{% if x is defined %}{{ x }}{% endif %}{% set y = x %}done", Origin{"t.txt"}, ctx);
    REQUIRE(ok);
    CHECK(*ok == "done");
    auto bad = render("a\n{{ x }}", Origin{"t.txt"}, ctx);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().str().find("t.txt:2:4: 'x' is undefined") == 0);
    auto cond = render("{% if x %}1{% endif %}", Origin{"t.txt"}, ctx);
    REQUIRE_FALSE(cond);
    CHECK(cond.error().str().find("t.txt:1:7: 'x' is undefined") == 0);
}
