// util/strings: one test case per function, one section per kind of input.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "util/strings.hpp"

using namespace sf;
using Strings = std::vector<std::string>;

TEST_CASE("str::split") {
    SECTION("plain") { CHECK(str::split("a,b,c", ',') == Strings{"a", "b", "c"}); }
    SECTION("empty input is one empty field") { CHECK(str::split("", ',') == Strings{""}); }
    SECTION("no separator") { CHECK(str::split("abc", ',') == Strings{"abc"}); }
    SECTION("empty fields are kept, at both ends and in the middle") {
        CHECK(str::split(",a,,b,", ',') == Strings{"", "a", "", "b", ""});
        CHECK(str::split(",", ',') == Strings{"", ""});
    }
    SECTION("UTF-8 bytes pass through untouched") {
        CHECK(str::split("\xC3\xA9:\xE2\x82\xAC:\xF0\x9F\x98\x80", ':') ==
              Strings{"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"});
    }
    SECTION("embedded NUL bytes are data") {
        const std::string s("a\0b,c", 5);
        CHECK(str::split(s, ',') == Strings{std::string("a\0b", 3), "c"});
    }
}

TEST_CASE("str::split_lines") {
    SECTION("\\n") { CHECK(str::split_lines("a\nb") == Strings{"a", "b"}); }
    SECTION("\\r\\n") { CHECK(str::split_lines("a\r\nb\r\n") == Strings{"a", "b"}); }
    SECTION("mixed endings") { CHECK(str::split_lines("a\r\nb\nc") == Strings{"a", "b", "c"}); }
    SECTION("empty input has no lines") { CHECK(str::split_lines("").empty()); }
    SECTION("a final newline adds no empty line; blank lines stay") {
        CHECK(str::split_lines("a\n") == Strings{"a"});
        CHECK(str::split_lines("\n") == Strings{""});
        CHECK(str::split_lines("a\n\n\nb\n") == Strings{"a", "", "", "b"});
        CHECK(str::split_lines("\r\n\r\n") == Strings{"", ""});
    }
    SECTION("a lone \\r inside a line is not a line break") { CHECK(str::split_lines("a\rb\nc") == Strings{"a\rb", "c"}); }
    SECTION("UTF-8 lines") {
        CHECK(str::split_lines("gr\xC3\xBC\xC3\x9F\r\n\xE2\x82\xAC") == Strings{"gr\xC3\xBC\xC3\x9F", "\xE2\x82\xAC"});
    }
}

TEST_CASE("str::join") {
    SECTION("nothing") { CHECK(str::join({}, ",") == ""); }
    SECTION("one part has no separator") { CHECK(str::join({"a"}, ", ") == "a"); }
    SECTION("several parts, multi-char separator") { CHECK(str::join({"a", "b", "c"}, ", ") == "a, b, c"); }
    SECTION("empty separator concatenates") { CHECK(str::join({"a", "b"}, "") == "ab"); }
    SECTION("empty parts still get separators") {
        CHECK(str::join({"", ""}, ",") == ",");
        CHECK(str::join({"", "a", ""}, "|") == "|a|");
    }
    SECTION("inverse of split") {
        for (const char* s : {"", ",", "a", "a,b", ",a,,b,", "\xC3\xA9,x"}) {
            INFO(s);
            CHECK(str::join(str::split(s, ','), ",") == s);
        }
    }
}

TEST_CASE("str::trim") {
    SECTION("both ends, all ASCII whitespace") { CHECK(str::trim(" \t\r\n\v\fa b\t \n") == "a b"); }
    SECTION("inner whitespace stays") { CHECK(str::trim("a  b") == "a  b"); }
    SECTION("empty") { CHECK(str::trim("") == ""); }
    SECTION("all whitespace") { CHECK(str::trim(" \t\n ").empty()); }
    SECTION("one side only") {
        CHECK(str::trim("  a") == "a");
        CHECK(str::trim("a  ") == "a");
    }
    SECTION("non-ASCII bytes are not whitespace (a UTF-8 no-break space stays)") {
        CHECK(str::trim("\xC2\xA0x\xC2\xA0") == "\xC2\xA0x\xC2\xA0");
        CHECK(str::trim(" \xC3\xA9 ") == "\xC3\xA9");
    }
    SECTION("the result views the input, no copy") {
        const std::string s = "  abc  ";
        auto t = str::trim(s);
        CHECK(t.data() == s.data() + 2);
        CHECK(t.size() == 3);
    }
}

TEST_CASE("str::replace_all") {
    SECTION("every occurrence") { CHECK(str::replace_all("a.b.c", ".", "::") == "a::b::c"); }
    SECTION("no occurrence") { CHECK(str::replace_all("abc", "x", "y") == "abc"); }
    SECTION("empty input") { CHECK(str::replace_all("", "a", "b") == ""); }
    SECTION("empty pattern changes nothing") { CHECK(str::replace_all("abc", "", "x") == "abc"); }
    SECTION("replacement containing the pattern is not rescanned") {
        CHECK(str::replace_all("aaa", "a", "aa") == "aaaaaa");
        CHECK(str::replace_all("@X@", "X", "@X@") == "@@X@@");
    }
    SECTION("non-overlapping, left to right") { CHECK(str::replace_all("aaaa", "aa", "b") == "bb"); }
    SECTION("deletion") { CHECK(str::replace_all("a-b-c", "-", "") == "abc"); }
    SECTION("UTF-8 patterns") { CHECK(str::replace_all("\xE2\x82\xAC" "5 \xE2\x82\xAC" "6", "\xE2\x82\xAC", "EUR") == "EUR5 EUR6"); }
    SECTION("whole string") { CHECK(str::replace_all("abc", "abc", "") == ""); }
}

// In place, each replacement moved the rest of the string: this took hours.
TEST_CASE("str::replace_all in linear time") {
    std::string s(4'000'000, 'a');
    std::string r = str::replace_all(s, "a", "bc");
    CHECK(r.size() == 8'000'000);
    CHECK(r.find('a') == std::string::npos);
    CHECK(r.compare(0, 4, "bcbc") == 0);
}

TEST_CASE("str::starts_with") {
    SECTION("yes") { CHECK(str::starts_with("prefix/rest", "prefix/")); }
    SECTION("no") { CHECK_FALSE(str::starts_with("prefix/rest", "rest")); }
    SECTION("empty prefix always") {
        CHECK(str::starts_with("abc", ""));
        CHECK(str::starts_with("", ""));
    }
    SECTION("prefix longer than the string") {
        CHECK_FALSE(str::starts_with("ab", "abc"));
        CHECK_FALSE(str::starts_with("", "a"));
    }
    SECTION("equal") { CHECK(str::starts_with("abc", "abc")); }
    SECTION("case-sensitive, byte-wise") {
        CHECK_FALSE(str::starts_with("Abc", "abc"));
        CHECK(str::starts_with("\xC3\xA9t\xC3\xA9", "\xC3\xA9"));
        CHECK_FALSE(str::starts_with("\xC3\xA9", "\xC3\xA8"));
    }
}

TEST_CASE("str::ends_with") {
    SECTION("yes") { CHECK(str::ends_with("libfoo.so", ".so")); }
    SECTION("no") { CHECK_FALSE(str::ends_with("libfoo.so.1", ".so")); }
    SECTION("empty suffix always") {
        CHECK(str::ends_with("abc", ""));
        CHECK(str::ends_with("", ""));
    }
    SECTION("suffix longer than the string") {
        CHECK_FALSE(str::ends_with("bc", "abc"));
        CHECK_FALSE(str::ends_with("", "a"));
    }
    SECTION("equal") { CHECK(str::ends_with("abc", "abc")); }
    SECTION("UTF-8") { CHECK(str::ends_with("caf\xC3\xA9", "\xC3\xA9")); }
}

TEST_CASE("str::lower") {
    SECTION("ASCII letters") { CHECK(str::lower("MiXeD Case") == "mixed case"); }
    SECTION("digits and punctuation unchanged") { CHECK(str::lower("A1-_.Z") == "a1-_.z"); }
    SECTION("empty") { CHECK(str::lower("") == ""); }
    SECTION("non-ASCII bytes unchanged (no locale-dependent folding)") {
        CHECK(str::lower("\xC3\x84\xC3\x96") == "\xC3\x84\xC3\x96");  // "ÄÖ" stays
        CHECK(str::lower("\xFF\x80") == "\xFF\x80");
    }
}

TEST_CASE("str::upper") {
    SECTION("ASCII letters") { CHECK(str::upper("MiXeD Case") == "MIXED CASE"); }
    SECTION("digits and punctuation unchanged") { CHECK(str::upper("a1-_.z") == "A1-_.Z"); }
    SECTION("empty") { CHECK(str::upper("") == ""); }
    SECTION("non-ASCII bytes unchanged") { CHECK(str::upper("\xC3\xA4\xC3\xB6") == "\xC3\xA4\xC3\xB6"); }  // "äö"
}

TEST_CASE("str::is_valid_utf8") {
    size_t off = 12345;
    SECTION("empty and ASCII") {
        CHECK(str::is_valid_utf8(""));
        CHECK(str::is_valid_utf8("plain ascii\n\t~"));
        CHECK(str::is_valid_utf8(std::string("nul\0inside", 10)));
    }
    SECTION("2-, 3- and 4-byte sequences, including the extremes") {
        CHECK(str::is_valid_utf8("\xC3\xA9"));              // U+00E9
        CHECK(str::is_valid_utf8("\xC2\x80"));              // U+0080, smallest 2-byte
        CHECK(str::is_valid_utf8("\xE2\x82\xAC"));          // U+20AC
        CHECK(str::is_valid_utf8("\xEF\xBF\xBF"));          // U+FFFF
        CHECK(str::is_valid_utf8("\xF0\x9F\x98\x80"));      // U+1F600
        CHECK(str::is_valid_utf8("\xF4\x8F\xBF\xBF"));      // U+10FFFF, the last code point
        CHECK(str::is_valid_utf8("\xED\x9F\xBF"));          // U+D7FF, just below the surrogates
        CHECK(str::is_valid_utf8("a\xC3\xA9z\xE2\x82\xAC"));
    }
    SECTION("the offset is left alone on success, and may be null") {
        CHECK(str::is_valid_utf8("\xC3\xA9", &off));
        CHECK(off == 12345);
        CHECK_FALSE(str::is_valid_utf8("\xFF", nullptr));
    }
    SECTION("a lone continuation byte") {
        CHECK_FALSE(str::is_valid_utf8("ab\x80", &off));
        CHECK(off == 2);
    }
    SECTION("bytes that never start a sequence") {
        CHECK_FALSE(str::is_valid_utf8("\xFF", &off));
        CHECK(off == 0);
        CHECK_FALSE(str::is_valid_utf8("x\xFE", &off));
        CHECK(off == 1);
        CHECK_FALSE(str::is_valid_utf8("\xF8\x88\x80\x80\x80", &off));  // 5-byte form
        CHECK(off == 0);
    }
    SECTION("truncated at the end of the text") {
        CHECK_FALSE(str::is_valid_utf8("ok\xE2\x82", &off));
        CHECK(off == 2);
        CHECK_FALSE(str::is_valid_utf8("\xF0\x9F\x98", &off));
        CHECK(off == 0);
    }
    SECTION("a sequence cut short by an ASCII byte") {
        CHECK_FALSE(str::is_valid_utf8("\xC3(", &off));
        CHECK(off == 0);
        CHECK_FALSE(str::is_valid_utf8("\xC3\xA9\xE2\x82x", &off));
        CHECK(off == 2);  // the first bad sequence, after a valid one
    }
    // RFC 3629 (and Python's strict decoder, which conda-build reads recipes
    // with) reject these.
    SECTION("overlong encodings") {
        CHECK_FALSE(str::is_valid_utf8("\xC0\xAF", &off));  // '/' in 2 bytes
        CHECK(off == 0);
        CHECK_FALSE(str::is_valid_utf8("a\xC1\xBF", &off));
        CHECK(off == 1);
        CHECK_FALSE(str::is_valid_utf8("\xE0\x80\xAF", &off));
        CHECK(off == 0);
        CHECK_FALSE(str::is_valid_utf8("\xF0\x80\x80\xAF", &off));
        CHECK(off == 0);
    }
    SECTION("UTF-16 surrogates") {
        CHECK_FALSE(str::is_valid_utf8("\xED\xA0\x80", &off));  // U+D800
        CHECK(off == 0);
        CHECK_FALSE(str::is_valid_utf8("xy\xED\xBF\xBF", &off));  // U+DFFF
        CHECK(off == 2);
    }
    SECTION("beyond U+10FFFF") {
        CHECK_FALSE(str::is_valid_utf8("\xF4\x90\x80\x80", &off));
        CHECK(off == 0);
        CHECK_FALSE(str::is_valid_utf8("\xF5\x80\x80\x80", &off));
        CHECK(off == 0);
    }
}

TEST_CASE("str::is_plain_ascii: every byte at every offset of a word") {
    auto naive = [](std::string_view s) {
        for (char c : s)
            if (!((c >= 0x20 && c <= 0x7e) || c == '\t')) return false;
        return true;
    };
    CHECK(str::is_plain_ascii(""));
    CHECK(str::is_plain_ascii("  - python >=3.10  # [win]\t"));
    for (int b = 0; b < 256; ++b)
        for (size_t len : {1u, 7u, 8u, 9u, 17u})
            for (size_t at = 0; at < len; ++at) {
                std::string s(len, 'a');
                s[at] = static_cast<char>(b);
                INFO("byte " << b << " at " << at << " of " << len);
                CHECK(str::is_plain_ascii(s) == naive(s));
            }
}

TEST_CASE("parse_int: Python's int() of a stripped string, without exceptions") {
    CHECK(str::parse_int("312") == 312);
    CHECK(str::parse_int("+3") == 3);
    CHECK(str::parse_int("-2") == -2);
    CHECK(str::parse_int("007") == 7);
    for (const char* bad : {"", "+", "-", "3.0", "3 ", "x1", "1x", "99999999999999999999"}) {
        INFO("'" << bad << "'");
        CHECK_FALSE(str::parse_int(bad));
    }
}
