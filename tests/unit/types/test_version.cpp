#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "types/version.hpp"

using sf::types::minor_version;
using sf::types::Version;

namespace {
Version V(const std::string& s) {
    auto r = Version::parse(s);
    INFO(s << ": " << (r ? std::string() : r.error().str()));
    REQUIRE(r);
    return *r;
}
}  // namespace

// The chain from conda's VersionOrder docstring, in order; "==" marks an
// element equal to the previous one. (conda's table writes 0.4 < 0.4.0, but
// its code, which we follow, fills missing parts with 0: 0.4 == 0.4.0.)
TEST_CASE("version: conda's documented order", "[version]") {
    const std::vector<std::pair<std::string, bool>> chain = {
        {"0.4", false},        {"0.4.0", true},       {"0.4.1.rc", false},  {"0.4.1.RC", true},
        {"0.4.1", false},      {"0.5a1", false},      {"0.5b3", false},     {"0.5C1", false},
        {"0.5", false},        {"0.9.6", false},      {"0.960923", false},  {"1.0", false},
        {"1.1dev1", false},    {"1.1a1", false},      {"1.1.0dev1", false}, {"1.1.dev1", true},
        {"1.1.a1", false},     {"1.1.0rc1", false},   {"1.1.0", false},     {"1.1", true},
        {"1.1.0post1", false}, {"1.1.post1", true},   {"1.1post1", false},  {"1996.07.12", false},
        {"1!0.4.1", false},    {"1!3.1.1.6", false},  {"2!0.4.1", false},
    };
    for (size_t i = 1; i < chain.size(); ++i) {
        const auto& [a, _] = chain[i - 1];
        const auto& [b, equal] = chain[i];
        INFO(a << (equal ? " == " : " < ") << b);
        if (equal) {
            CHECK(V(a) == V(b));
        } else {
            CHECK(V(a) < V(b));
            CHECK(V(b) > V(a));
            CHECK_FALSE(V(a) == V(b));
        }
    }
}

// Table: a < b (or a == b). Every pair is checked both ways.
TEST_CASE("version: ordering table", "[version]") {
    struct Row {
        const char* a;
        const char* op;  // "<" or "=="
        const char* b;
    };
    const std::vector<Row> rows = {
        // pre-releases, release, post-releases
        {"1.0a1", "<", "1.0rc1"}, {"1.0rc1", "<", "1.0"}, {"1.0", "<", "1.0.post1"},
        {"1.0a1", "<", "1.0a2"}, {"1.0a2", "<", "1.0b1"}, {"1.0b1", "<", "1.0rc1"},
        {"1.0a9", "<", "1.0a10"}, {"1.0rc1", "<", "1.0rc2"}, {"1.0.post1", "<", "1.0.post2"},
        {"1.0post1", ">", "1.0.1"}, {"1.0.post1", "<", "1.1"}, {"1.0", "<", "1.0post"},
        // dev sorts below everything, including pre-releases and '_'
        {"1.1dev1", "<", "1.1a1"}, {"1.0dev1", "<", "1.0a1"}, {"1.0a1", "<", "1.0.dev1"}, {"1.0dev", "<", "1.0a"},
        {"1.0.dev1", "<", "1.0"}, {"1.0.dev1", "<", "1.0.dev2"}, {"1.0dev1", "<", "1.0_"},
        {"1.0.dev", "<", "1.0.0"}, {"0.9", "<", "1.0.dev0"},
        // '_' sorts between dev and letters: openssl-style 1.0.1_ < 1.0.1a < 1.0.1
        {"1.0.1_", "<", "1.0.1"}, {"1.0.1_", "<", "1.0.1a"}, {"1.0.1a", "<", "1.0.1"}, {"1.0.1_", "<", "1.0.2"}, {"1.0.1dev", "<", "1.0.1_"},
        {"1.0.1_", "<", "1.0.1post"},
        // numeric components compare as numbers, any length
        {"1.9", "<", "1.10"}, {"1.2", "<", "1.11"}, {"2", "<", "10"}, {"1.01", "==", "1.1"},
        {"1.0.9", "<", "1.0.10"}, {"99999999999999999999", "<", "100000000000000000000"},
        {"20230101", "<", "20230102"}, {"1.2.3.4.5", "<", "1.2.3.4.6"},
        // mixed lengths: missing parts count as 0
        {"1.0", "==", "1.0.0"}, {"1", "==", "1.0.0.0"}, {"1.0", "<", "1.0.1"}, {"1.0.0.1", ">", "1.0"},
        {"1.1", "<", "1.1.0.1"}, {"2.0", ">", "1.99.99"},
        // strings below numbers; lexical among strings; case-insensitive
        {"1.0a", "<", "1.0b"}, {"1.0alpha", "<", "1.0beta"}, {"1.0beta", "<", "1.0rc"},
        {"1.0.a", "==", "1.0.0a"}, {"1.0RC1", "==", "1.0rc1"}, {"1.0a", "<", "1.0.0"},
        {"1.1.parallel", "<", "1.1"}, {"1.0.x", "<", "1.0.1"},
        // epochs dominate
        {"1!0.1", ">", "2.0"}, {"1!1.0", "<", "2!0.1"}, {"0!1.0", "==", "1.0"}, {"1!1.0", "==", "1!1.0.0"},
        {"9999", "<", "1!0"},
        // local versions only break ties
        {"1.0", "<", "1.0+1"}, {"1.0+1", "<", "1.0+2"}, {"1.0+abc", "<", "1.0+abd"},
        {"1.0+abc", "<", "1.0.1"}, {"1.0+1", "==", "1.0.0+1.0"}, {"1.0+a", "<", "1.0+1"},
        {"1.0+1.1", "<", "1.0+1.2"},
        // dashes become underscores when there are none
        {"1.0-1", "==", "1.0_1"}, {"1.0-1", "==", "1.0.1"},
        // '*' sorts below dev (it only appears in specs)
        {"1.*", "<", "1.dev"},
    };
    REQUIRE(rows.size() >= 60);
    for (const auto& r : rows) {
        INFO(r.a << " " << r.op << " " << r.b);
        Version a = V(r.a), b = V(r.b);
        std::string op = r.op;
        if (op == "==") {
            CHECK(a == b);
            CHECK(a.compare(b) == 0);
            CHECK(b.compare(a) == 0);
        } else if (op == "<") {
            CHECK(a < b);
            CHECK(b > a);
            CHECK(a.compare(b) == -1);
            CHECK(b.compare(a) == 1);
        } else {
            CHECK(a > b);
            CHECK(b < a);
        }
    }
}

TEST_CASE("version: sorting a shuffled list reproduces the order", "[version]") {
    std::vector<std::string> ordered = {"0.4.1.rc", "0.4.1", "0.5a1", "0.5", "1.1dev1", "1.1a1",
                                        "1.1.0rc1", "1.1",  "1.1post1", "1!0.4.1"};
    std::vector<Version> vs;
    for (auto it = ordered.rbegin(); it != ordered.rend(); ++it) vs.push_back(V(*it));
    std::sort(vs.begin(), vs.end());
    for (size_t i = 0; i < ordered.size(); ++i) CHECK(vs[i].str() == sf::types::Version::parse(ordered[i])->str());
}

TEST_CASE("version: starts_with", "[version]") {
    CHECK(V("1.2.3").starts_with(V("1.2")));
    CHECK(V("1.2").starts_with(V("1.2")));
    CHECK(V("1.2.0").starts_with(V("1.2")));
    CHECK_FALSE(V("1.20").starts_with(V("1.2")));
    CHECK_FALSE(V("1.3").starts_with(V("1.2")));
    CHECK(V("1.2a1").starts_with(V("1.2a")));
    CHECK(V("1.2+abc.1").starts_with(V("1.2+abc")));
    CHECK_FALSE(V("1.3+abc").starts_with(V("1.2+abc")));
    CHECK(V("1!1.2.3").starts_with(V("1!1.2")));
    CHECK_FALSE(V("1.2.3").starts_with(V("1!1.2")));
}

TEST_CASE("version: normalized text", "[version]") {
    CHECK(V("  1.0RC1 ").str() == "1.0rc1");
    CHECK(V("1.0-1").str() == "1.0_1");
    CHECK(V("1!2.3+loc").str() == "1!2.3+loc");
}

TEST_CASE("version: parse errors", "[version]") {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"", "invalid version '': empty version string"},
        {"1..2", "invalid version '1..2': empty version component"},
        {"1.2.", "invalid version '1.2.': empty version component"},
        {"1.2$", "invalid version '1.2$': invalid character(s)"},
        {"1.2-3_4", "invalid version '1.2-3_4': invalid character(s)"},
        {"1!2!3", "invalid version '1!2!3': duplicated epoch separator '!'"},
        {"a!1.0", "invalid version 'a!1.0': epoch must be an integer"},
        {"1.0+a+b", "invalid version '1.0+a+b': duplicated local version separator '+'"},
        {"1.0+", "invalid version '1.0+': empty version component"},
        {"1 2", "invalid version '1 2': invalid character(s)"},
    };
    for (const auto& [text, msg] : bad) {
        auto r = Version::parse(text);
        INFO(text);
        REQUIRE_FALSE(r);
        CHECK(r.error().str() == msg);
    }
}

TEST_CASE("minor_version", "[types][version]") {
    CHECK(minor_version("3.9.* *_cpython") == "3.9");
    CHECK(minor_version("3.12") == "3.12");
    CHECK(minor_version("3.12.1") == "3.12");
    CHECK(minor_version(">=3.9") == "");
    CHECK(minor_version("3") == "");
}
