#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "types/match_spec.hpp"
#include "util/strings.hpp"

using namespace sf::types;

namespace {
Version V(const std::string& s) { return *Version::parse(s); }

PackageRecord rec(const std::string& name, const std::string& version, const std::string& build, int bn = 0) {
    nlohmann::json j = {{"name", name}, {"version", version}, {"build", build}, {"build_number", bn},
                        {"subdir", "linux-64"}};
    auto r = PackageRecord::from_json(j, "test");
    REQUIRE(r);
    return *r;
}
}  // namespace

TEST_CASE("version spec: match table", "[version_spec]") {
    struct Row {
        const char* spec;
        const char* version;
        bool match;
    };
    const std::vector<Row> rows = {
        {"*", "1.0", true},          {"1.2.*", "1.2.3", true},      {"1.2.*", "1.2", true},
        {"1.2.*", "1.20", false},    {"1.2.*", "1.3", false},       {"1.2*", "1.2.3", true},
        {"1.2*", "1.20", false},     {"1.2", "1.2.0", true},        {"1.2", "1.2.3", false},
        {"==1.2", "1.2.0", true},    {"==1.2", "1.2.1", false},     {"=1.2", "1.2.5", true},
        {"=1.2", "1.3", false},      {">=1.2,<2", "1.5", true},     {">=1.2,<2", "2.0", false},
        {">=1.2,<2", "2.0a1", true}, {">=1.2,<2", "1.1", false},    {">1.2", "1.2", false},
        {">1.2", "1.2.1", true},     {"<=1.2", "1.2.0", true},      {"<1.2", "1.2a1", true},
        {"!=1.3", "1.3.0", false},   {"!=1.3", "1.3.1", true},      {"!=1.3.*", "1.3.1", false},
        {"!=1.3.*", "1.4", true},    {"1.2|1.4", "1.4", true},      {"1.2|1.4", "1.3", false},
        {"1.2.*,<2", "1.2.9", true}, {"1.2.*,<2", "1.3", false},    {">=1.2.*", "1.2.0", true},
        {"~=1.2", "1.9", true},      {"~=1.2", "2.0", false},       {"~=1.2", "1.1", false},
        {"~=1.2.3", "1.2.5", true},  {"~=1.2.3", "1.3.0", false},   {"~=1.2.3", "1.2.2", false},
        {"(1.2|1.4),>1.3", "1.4", true},  {"(1.2|1.4),>1.3", "1.2", false},
        {"1.2,>1.3|1.4", "1.4", true},    {"1.*.3", "1.2.3", true}, {"1.*.3", "1.2.4", false},
        {"^1\\.2\\.[0-9]$", "1.2.7", true}, {"^1\\.2\\.[0-9]$", "1.2.10", false},
        {">=1!1.0", "2.0", false},   {">=1!1.0", "1!1.5", true},    {"1.0+abc", "1.0+abc", true},
        {">= 1.2", "1.3", false /* error row, see below */},
    };
    for (const auto& r : rows) {
        INFO(r.spec << " vs " << r.version);
        auto s = VersionSpec::parse(r.spec);
        if (std::string(r.spec) == ">= 1.2") {
            CHECK_FALSE(s);
            continue;
        }
        REQUIRE(s);
        CHECK(s->matches(V(r.version)) == r.match);
    }
}

TEST_CASE("version spec: parse errors", "[version_spec]") {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"", "invalid version spec '': empty version spec"},
        {">>1.2", "invalid version spec '>>1.2': invalid operator in '>>1.2'"},
        {"=>1.2", "invalid version spec '=>1.2': invalid operator in '=>1.2'"},
        {"<", "invalid version spec '<': invalid operator in '<'"},
        {"1.2,", "invalid version spec '1.2,': expected a version after the last operator"},
        {"(1.2|1.3", "invalid version spec '(1.2|1.3': missing ')'"},
        {"1.2)", "invalid version spec '1.2)': unexpected ')'"},
        {"|1.2", "invalid version spec '|1.2': unexpected '|'"},
        {"1..2", "invalid version spec '1..2': invalid version '1..2': empty version component"},
        {">=1.2$", "invalid version spec '>=1.2$': regex specs must start with '^' and end with '$'"},
        {"~=1", "invalid version spec '~=1': '~=' needs a version with at least two components in '~=1'"},
        {"~=1.2.*", "invalid version spec '~=1.2.*': invalid operator with '.*' in '~=1.2.*'"},
        {">=1.2,<2#", "invalid version spec '>=1.2,<2#': invalid version '2#': invalid character(s)"},
    };
    for (const auto& [text, msg] : bad) {
        INFO(text);
        auto r = VersionSpec::parse(text);
        REQUIRE_FALSE(r);
        CHECK(r.error().str() == msg);
    }
}

TEST_CASE("match spec: parse forms", "[match_spec]") {
    struct Row {
        const char* text;
        const char* name;
        const char* version;  // VersionSpec text after conda's translation
        const char* build;
    };
    const std::vector<Row> rows = {
        {"numpy", "numpy", "*", ""},
        {"numpy 1.11.*", "numpy", "1.11.*", ""},
        {"numpy >=1.11,<2", "numpy", ">=1.11,<2", ""},
        {"numpy >=1.11, <2", "numpy", ">=1.11,<2", ""},
        {"numpy 1.11 py38*", "numpy", "1.11", "py38*"},
        {"numpy=1.11=h123_0", "numpy", "1.11", "h123_0"},
        {"numpy==1.11", "numpy", "1.11", ""},
        {"numpy=1.11", "numpy", "1.11*", ""},
        {"numpy>=1.11", "numpy", ">=1.11", ""},
        {"numpy 1.11.0 0", "numpy", "1.11.0", "0"},
        {"numpy * openblas_0", "numpy", "*", "openblas_0"},
        {"numpy >=1.0 , < 2.0 py34_0", "numpy", ">=1.0,<2.0", "py34_0"},
        {"NumPy", "numpy", "*", ""},
        {"conda-forge::numpy >=1.2", "numpy", ">=1.2", ""},
        {"numpy[version='>=1.2,<2',build=*cpu*]", "numpy", ">=1.2,<2", "*cpu*"},
        {"numpy 1.2[build=py3*]", "numpy", "1.2", "py3*"},
        {"__glibc >=2.17", "__glibc", ">=2.17", ""},
    };
    for (const auto& r : rows) {
        INFO(r.text);
        auto m = MatchSpec::parse(r.text);
        REQUIRE(m);
        CHECK(m->name() == r.name);
        CHECK(m->version().str() == r.version);
        CHECK(m->build() == r.build);
    }
    CHECK(MatchSpec::parse("conda-forge/linux-64::numpy")->channel() == "conda-forge");
}

TEST_CASE("match spec: matches records", "[match_spec]") {
    struct Row {
        const char* spec;
        PackageRecord r;
        bool match;
    };
    const std::vector<Row> rows = {
        {"foo", rec("foo", "1.0", "0"), true},
        {"foo", rec("bar", "1.0", "0"), false},
        {"FOO", rec("foo", "1.0", "0"), true},
        {"foo 1.2.*", rec("foo", "1.2.3", "0"), true},
        {"foo 1.2.*", rec("foo", "1.3", "0"), false},
        {"foo >=1.2,<2", rec("foo", "1.9", "0"), true},
        {"foo >=1.2,<2", rec("foo", "2.0", "0"), false},
        {"foo 1.2 build*", rec("foo", "1.2", "build_3"), true},
        {"foo 1.2 build*", rec("foo", "1.2", "other"), false},
        {"foo 1.2 build*", rec("foo", "1.2.1", "build_3"), false},
        {"foo=1.2=h123_0", rec("foo", "1.2", "h123_0"), true},
        {"foo=1.2=h123_0", rec("foo", "1.2", "h123_1"), false},
        {"foo=1.2", rec("foo", "1.2.7", "x"), true},
        {"foo==1.2", rec("foo", "1.2.7", "x"), false},
        {"foo 1.2", rec("foo", "1.2.7", "x"), false},  // exact, as conda and rattler
        {"foo * *cuda*", rec("foo", "1.0", "py_cuda12_0"), true},
        {"foo * *cuda*", rec("foo", "1.0", "py_cpu_0"), false},
        {"foo[build_number='>=3']", rec("foo", "1.0", "x", 3), true},
        {"foo[build_number='>=3']", rec("foo", "1.0", "x", 2), false},
        {"foo[subdir=linux-64]", rec("foo", "1.0", "x"), true},
        {"foo[subdir=osx-64]", rec("foo", "1.0", "x"), false},
        {"foo[build='^py3[0-9]_0$']", rec("foo", "1.0", "py39_0"), true},
        {"foo[build='^py3[0-9]_0$']", rec("foo", "1.0", "py310_0"), false},
    };
    for (const auto& r : rows) {
        INFO(r.spec << " vs " << r.r.dist_name());
        auto m = MatchSpec::parse(r.spec);
        REQUIRE(m);
        CHECK(m->matches(r.r) == r.match);
    }
}

TEST_CASE("match spec: parse errors", "[match_spec]") {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"", "invalid match spec '': empty match spec"},
        {">=1.2", "invalid match spec '>=1.2': no package name found"},
        {"foo >>1.2", "invalid match spec 'foo >>1.2': invalid version spec '>>1.2': invalid operator in '>>1.2'"},
        {"foo[version=1.2", "invalid match spec 'foo[version=1.2': '[' without a closing ']' at the end"},
        {"foo[version]", "invalid match spec 'foo[version]': key-value mismatch in brackets"},
        {"foo[colour=red]", "invalid match spec 'foo[colour=red]': cannot match on field 'colour'"},
        {"fo$o", "invalid match spec 'fo$o': invalid package name 'fo$o'"},
        {"foo 1..2", "invalid match spec 'foo 1..2': invalid version spec '1..2': invalid version '1..2': empty version component"},
    };
    for (const auto& [text, msg] : bad) {
        INFO(text);
        auto r = MatchSpec::parse(text);
        REQUIRE_FALSE(r);
        CHECK(r.error().str() == msg);
    }
}

TEST_CASE("glob_match", "[match_spec]") {
    CHECK(glob_match("*", "anything"));
    CHECK(glob_match("py3*_0", "py310_0"));
    CHECK_FALSE(glob_match("py3*_0", "py310_1"));
    CHECK(glob_match("*cpu*", "h1_cpu_0"));
    CHECK_FALSE(glob_match("abc", "abcd"));
    CHECK(glob_match("a*b*c", "aXbYc"));
}

TEST_CASE("MatchSpec::name_of", "[types][match_spec]") {
    SECTION("plain and versioned") {
        CHECK(MatchSpec::name_of("cmake") == "cmake");
        CHECK(MatchSpec::name_of("cmake >=3.20") == "cmake");
        CHECK(MatchSpec::name_of("  python 3.12.* *_cpython") == "python");
    }
    SECTION("operators glued to the name") {
        CHECK(MatchSpec::name_of("foo==1.0") == "foo");
        CHECK(MatchSpec::name_of("foo>=1,<2") == "foo");
        CHECK(MatchSpec::name_of("foo~=1.2") == "foo");
        CHECK(MatchSpec::name_of("foo!=1.2") == "foo");
    }
    SECTION("bracket and channel forms") {
        CHECK(MatchSpec::name_of("numpy[version='>=1.20']") == "numpy");
        CHECK(MatchSpec::name_of("conda-forge::numpy >=1") == "numpy");
        CHECK(MatchSpec::name_of("conda-forge/linux-64::zlib") == "zlib");
    }
    SECTION("empty") { CHECK(MatchSpec::name_of("  ").empty()); }
}

// One split for both: conda's MatchSpec takes brackets off the end, the
// channel before the last "::", then the name up to the first of " =<>!~".
// name_of keeps the case as written (conda's .name); parse() lower-cases.
TEST_CASE("MatchSpec::name_of and parse agree on the name", "[types][match_spec]") {
    const char* specs[] = {"cmake",
                           "cmake >=3.20",
                           "  python 3.12.* *_cpython",
                           "foo==1.0",
                           "foo>=1,<2",
                           "foo~=1.2",
                           "foo!=1.2",
                           "foo=1.2=h0_0",
                           "numpy[version='>=1.20']",
                           "numpy >=1[build=*cpu*]",
                           "conda-forge::numpy >=1",
                           "conda-forge/linux-64::zlib 1.3",
                           "PyYAML >=6",
                           "_openmp_mutex 4.5 *_llvm",
                           "__glibc >=2.17,<3.0.a0"};
    for (const char* text : specs) {
        INFO(text);
        auto m = MatchSpec::parse(text);
        REQUIRE(m);
        CHECK(sf::str::lower(MatchSpec::name_of(text)) == m->name());
    }
    CHECK(MatchSpec::name_of("PyYAML >=6") == "PyYAML");
    CHECK(MatchSpec::parse("PyYAML >=6")->name() == "pyyaml");
    // '@' and tabs are no separators in conda: the name then holds them, and parse refuses it.
    CHECK(MatchSpec::name_of("foo@1.0") == "foo@1.0");
    CHECK_FALSE(MatchSpec::parse("foo@1.0"));
}
