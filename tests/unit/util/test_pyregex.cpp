// util/pyregex: Python `re` semantics on Boost.Regex. The expected values are
// what CPython's re module returns for the same pattern and text.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "util/pyregex.hpp"

using namespace sf;
using Strings = std::vector<std::string>;

TEST_CASE("PyRegex construction") {
    SECTION("Python-only syntax Boost's Perl mode shares: look-behind, conditionals, non-greedy") {
        CHECK_NOTHROW(PyRegex(R"((?<=a)b)"));
        CHECK_NOTHROW(PyRegex(R"((a)?(?(1)b|c))"));
        CHECK_NOTHROW(PyRegex(R"(a+?)"));
    }
    SECTION("an invalid pattern throws") {
        CHECK_THROWS(PyRegex("(unclosed"));
        CHECK_THROWS(PyRegex("[z-a]"));
    }
    SECTION("the selector pattern of recipe/selectors.cpp compiles and works") {
        PyRegex sel(R"((.+?)\s*(#.*)?\[([^\[\]]+)\](?(2)[^\(\)]*)$)");
        auto m = sel.search("  - cmake  # [linux]");
        REQUIRE(m);
        CHECK(m->str(1) == "  - cmake");
        CHECK(m->str(3) == "linux");
    }
}

TEST_CASE("PyRegex::search") {
    SECTION("the first match, its position, length and groups") {
        PyRegex re(R"((\w+)-(\d+))");
        auto m = re.search("pkgs: foo-12 bar-3");
        REQUIRE(m);
        CHECK(m->position == 6);
        CHECK(m->length == 6);
        REQUIRE(m->groups.size() == 3);
        CHECK(m->str() == "foo-12");
        CHECK(m->str(0) == "foo-12");
        CHECK(m->str(1) == "foo");
        CHECK(m->str(2) == "12");
    }
    SECTION("no match") { CHECK_FALSE(PyRegex("x+").search("abc")); }
    SECTION("empty text: only patterns that match empty") {
        CHECK_FALSE(PyRegex("a").search(""));
        auto m = PyRegex("a*").search("");
        REQUIRE(m);
        CHECK(m->position == 0);
        CHECK(m->length == 0);
        CHECK(m->str() == "");
    }
    SECTION("an unmatched optional group is None, not an empty string") {
        auto m = PyRegex("(a)|(b)").search("b");
        REQUIRE(m);
        CHECK_FALSE(m->group(1).has_value());
        CHECK(m->str(1) == "");  // str() gives "" for None
        REQUIRE(m->group(2).has_value());
        CHECK(*m->group(2) == "b");
    }
    SECTION("a group that matched empty is an empty string, not None") {
        auto m = PyRegex("(a*)b").search("b");
        REQUIRE(m);
        REQUIRE(m->group(1).has_value());
        CHECK(m->group(1)->empty());
    }
    SECTION("a group index past the last group throws") {
        auto m = PyRegex("(a)").search("a");
        REQUIRE(m);
        CHECK_THROWS_AS(m->group(2), std::out_of_range);
        CHECK_THROWS_AS(m->str(2), std::out_of_range);
    }
    SECTION("position and length count bytes of UTF-8 text") {
        auto m = PyRegex("b+").search("\xC3\xA9\xC3\xA9" "bb");
        REQUIRE(m);
        CHECK(m->position == 4);
        CHECK(m->length == 2);
    }
    SECTION("UTF-8 in the pattern matches the same bytes") {
        auto m = PyRegex("caf\xC3\xA9 (\\w+)").search("un caf\xC3\xA9 noir");
        REQUIRE(m);
        CHECK(m->str(1) == "noir");
    }
    SECTION("the text may contain NUL bytes") {
        const std::string text("a\0b", 3);
        auto m = PyRegex("b").search(text);
        REQUIRE(m);
        CHECK(m->position == 2);
    }
    SECTION("look-behind and look-ahead") {
        auto m = PyRegex(R"((?<=v)\d+(?=\.))").search("x v12.3");
        REQUIRE(m);
        CHECK(m->str() == "12");
        CHECK(m->position == 3);
    }
}

TEST_CASE("PyRegex::match") {
    SECTION("anchored at the start") {
        PyRegex re("b+");
        CHECK_FALSE(re.match("abb"));
        CHECK(re.search("abb"));
        auto m = re.match("bba");
        REQUIRE(m);
        CHECK(m->position == 0);
        CHECK(m->str() == "bb");
    }
    SECTION("need not reach the end (re.match, not re.fullmatch)") {
        auto m = PyRegex("a").match("abc");
        REQUIRE(m);
        CHECK(m->length == 1);
    }
    SECTION("empty text") {
        CHECK_FALSE(PyRegex("a").match(""));
        CHECK(PyRegex("a?").match(""));
    }
    SECTION("with multiline it still anchors at the start of the text, not of a line") {
        CHECK_FALSE(PyRegex("b", PyRegex::multiline).match("a\nb"));
    }
    SECTION("alternation backtracks at the start") {
        auto m = PyRegex("ab|a").match("ac");
        REQUIRE(m);
        CHECK(m->str() == "a");
    }
}

TEST_CASE("PyRegex::matches_anywhere") {
    SECTION("yes and no") {
        PyRegex re(R"(\bnumpy\b)");
        CHECK(re.matches_anywhere("requires numpy x.x"));
        CHECK_FALSE(re.matches_anywhere("requires numpyx"));
    }
    SECTION("empty text") {
        CHECK_FALSE(PyRegex("a").matches_anywhere(""));
        CHECK(PyRegex("").matches_anywhere(""));
    }
    SECTION("agrees with search()") {
        PyRegex re(R"(\d{2,})");
        for (const char* t : {"", "1", "12", "a1b22", "no digits"}) {
            INFO(t);
            CHECK(re.matches_anywhere(t) == re.search(t).has_value());
        }
    }
}

TEST_CASE("PyRegex::findall") {
    SECTION("no groups: the whole matches") { CHECK(PyRegex(R"(\d+)").findall("a1 b22 c333") == Strings{"1", "22", "333"}); }
    SECTION("with groups: group 1") {
        CHECK(PyRegex(R"((\w+)=(\w+))").findall("a=1, b=2") == Strings{"a", "b"});
    }
    SECTION("no match, and empty text") {
        CHECK(PyRegex("x").findall("abc").empty());
        CHECK(PyRegex("x").findall("").empty());
    }
    SECTION("an unmatched group 1 gives an empty string") {
        CHECK(PyRegex("(a)?b").findall("b ab") == Strings{"", "a"});
    }
    SECTION("empty matches, as Python 3.7+: re.findall('a*', 'baa') == ['', 'aa', '']") {
        CHECK(PyRegex("a*").findall("baa") == Strings{"", "aa", ""});
        CHECK(PyRegex("").findall("ab") == Strings{"", "", ""});
    }
    SECTION("matches do not overlap") { CHECK(PyRegex("aa").findall("aaaaa") == Strings{"aa", "aa"}); }
    SECTION("with multiline, ^ finds every line start") {
        CHECK(PyRegex(R"(^(\w+):)", PyRegex::multiline).findall("a: 1\nb: 2\n  c: 3") == Strings{"a", "b"});
        CHECK(PyRegex(R"(^(\w+):)").findall("a: 1\nb: 2") == Strings{"a"});
    }
}

TEST_CASE("PyRegex flags and Python-specific escapes") {
    SECTION("without multiline, ^ anchors at the start of the text only") {
        CHECK_FALSE(PyRegex("^b").search("a\nb"));
        CHECK(PyRegex("^a").search("a\nb"));
    }
    SECTION("without multiline, $ does not match before an inner newline") {
        CHECK_FALSE(PyRegex("a$").search("a\nb"));
        CHECK(PyRegex("b$").search("a\nb"));
    }
    SECTION("multiline: ^ and $ at every line") {
        auto m = PyRegex("^b$", PyRegex::multiline).search("a\nb\nc");
        REQUIRE(m);
        CHECK(m->position == 2);
        CHECK(PyRegex("a$", PyRegex::multiline).search("a\nb"));
    }
    SECTION("without dotall, . stops at a newline") {
        CHECK_FALSE(PyRegex("a.b").search("a\nb"));
        CHECK(PyRegex("a.b").search("a-b"));
        auto m = PyRegex("a.*").search("abc\ndef");
        REQUIRE(m);
        CHECK(m->str() == "abc");
    }
    SECTION("dotall: . matches a newline too") {
        CHECK(PyRegex("a.b", PyRegex::dotall).search("a\nb"));
        auto m = PyRegex("a.*", PyRegex::dotall).search("abc\ndef");
        REQUIRE(m);
        CHECK(m->str() == "abc\ndef");
    }
    SECTION("both flags together") {
        auto m = PyRegex(R"(^b.+?$)", PyRegex::multiline | PyRegex::dotall).search("a\nb1\nb2\nc");
        REQUIRE(m);
        CHECK(m->str() == "b1");
    }
    SECTION("\\Z is the very end of the text, even before a final newline") {
        CHECK(PyRegex(R"(a\Z)").search("xa"));
        CHECK_FALSE(PyRegex(R"(a\Z)").search("xa\n"));
        CHECK_FALSE(PyRegex(R"(a\Z)", PyRegex::multiline).search("a\nb"));
        // The render stage's idiom: up to the next top-level key or the end.
        auto m = PyRegex(R"(req:.+?(?=^\w|\Z))", PyRegex::multiline | PyRegex::dotall).search("req:\n  - a\n");
        REQUIRE(m);
        CHECK(m->str() == "req:\n  - a\n");
    }
    SECTION("an escaped backslash before Z is a literal backslash and Z") {
        CHECK(PyRegex(R"(\\Z)").search(R"(a\Zb)"));
        CHECK_FALSE(PyRegex(R"(\\Z)").search("aZ"));
    }
    SECTION("other escapes pass through") {
        CHECK(PyRegex(R"(\d\s\w\.)").search("1 a."));
        CHECK_FALSE(PyRegex(R"(\.)").search("a"));
        CHECK(PyRegex(R"(\A\d)").search("1x"));
        CHECK_FALSE(PyRegex(R"(\A\d)").search("x1"));
    }
    SECTION("a trailing backslash is invalid, as in Python") { CHECK_THROWS(PyRegex("a\\")); }
}
