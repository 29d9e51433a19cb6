#include <catch2/catch.hpp>

#include "recipe/selectors.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

#include <cstdlib>
#include <filesystem>
#include <set>

using namespace sf::recipe;

TEST_CASE("split_selectors: conda-build's selector pattern") {
    auto lines = split_selectors("a: 1  # [linux]\n# a comment\n  - foo [win]\nurl: x  # see [1](y)\n'q: v'  # [osx]\n");
    REQUIRE(lines.size() == 5);
    CHECK(*lines[0].selector == "linux");
    CHECK(lines[0].text == "a: 1");
    CHECK_FALSE(lines[1].selector);
    CHECK(lines[1].text.empty());
    CHECK(*lines[2].selector == "win");  // a selector needs no comment sign
    CHECK_FALSE(lines[3].selector);      // markdown links after a comment are not selectors
    CHECK(lines[4].text == "'q: v'");
}

TEST_CASE("selector namespace: flags, py as an int, variant values converted") {
    auto ns = selector_namespace("osx-arm64", "osx-arm64",
                                 {{"python", "3.12.* *_cpython"}, {"megabuild", "true"}, {"cuda_major", "12"}, {"blas_impl", "mkl"}});
    REQUIRE(ns);
    auto eval = [&](const char* e) {
        auto v = sf::jinja::evaluate(e, {"t", 1, 1}, *ns);
        REQUIRE(v);
        return v->truthy();
    };
    CHECK(eval("osx and arm64 and unix"));
    CHECK_FALSE(eval("linux or win or x86_64"));
    CHECK(eval("py == 312 and py3k"));
    CHECK(eval("megabuild"));
    CHECK(eval("cuda_major >= 12"));
    CHECK(eval("blas_impl == 'mkl'"));
    CHECK(eval("target_platform is undefined or true"));
}

TEST_CASE("selector namespace: a python or numpy that is no version is an error, as conda-build's int() raises") {
    auto py = selector_namespace("linux-64", "linux-64", {{"python", "pypy"}});
    REQUIRE_FALSE(py);
    CHECK(py.error().message.find("variant python 'pypy'") != std::string::npos);
    auto np = selector_namespace("linux-64", "linux-64", {{"numpy", "x.y"}});
    REQUIRE_FALSE(np);
    CHECK(np.error().message.find("variant numpy 'x.y'") != std::string::npos);
    auto ok = selector_namespace("linux-64", "linux-64", {{"numpy", "2"}});
    REQUIRE(ok);
    auto v = sf::jinja::evaluate("np == 2", {"t", 1, 1}, *ok);
    REQUIRE(v);
    CHECK(v->truthy());
}

TEST_CASE("selector namespace: float() reads what Python's reads and refuses the rest") {
    auto ns = selector_namespace("linux-64", "linux-64", {});
    REQUIRE(ns);
    auto eval = [&](const char* e) { return sf::jinja::evaluate(e, {"t", 1, 1}, *ns); };
    auto ok = eval("float(' 2.5 ') == 2.5 and float('1e400') > 1e300 and float(3) == 3.0");
    REQUIRE(ok);
    CHECK(ok->truthy());
    for (const char* bad : {"float('x')", "float('')", "float('1.5x')", "float('0x10')", "float('nan(1)')"}) {
        INFO(bad);
        auto r = eval(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("could not convert string to float") != std::string::npos);
    }
}

TEST_CASE("apply_selectors: an unknown name is an error at file:line:col") {
    auto lines = split_selectors("a: 1\nb: 2  # [linx]\n");
    auto r = apply_selectors(lines, *selector_namespace("linux-64", "linux-64", {}), "meta.yaml");
    REQUIRE_FALSE(r);
    CHECK(r.error().str().rfind("meta.yaml:2:", 0) == 0);
    CHECK(r.error().message.find("'linx'") != std::string::npos);
}

namespace {

void same_as_regex(const std::string& line) {
    INFO("line: [" << line << "]");
    CHECK(sf::recipe::match_selector(line) == sf::recipe::match_selector_by_regex(line));
}

}  // namespace

TEST_CASE("match_selector: equals conda-build's sel_pat on edge cases and random lines") {
    for (std::string l : {"x [a]", "x[a]", "[a]", " [a]", "x  # [a]", "x # [a] tail", "x # [a] (tail)", "x # [a] b]",
                          "x # [a] [b]", "x # [a] [b](", "x [a] [b]", "x [] ", "x []", "x [[a]]", "x # [a]]", "#[a]",
                          "x #", "x # []", "x # [a", "a#b # [c]", "a [b] # [c]", "a # [b] # [c] (d", "x\t#\t[a]",
                          "x # [a]  ", "  - foo  # [linux and py>=38]", "x # [a(b)]", "x # [a] )", "xx", "x", ""})
        same_as_regex(l);
    const std::string alphabet = "x #[]()\t-a";
    unsigned state = 7;
    auto rnd = [&](unsigned n) {
        state = state * 1103515245u + 12345u;
        return (state >> 16) % n;
    };
    for (int i = 0; i < 50000; ++i) {
        std::string line;
        for (unsigned len = rnd(14); len > 0; --len) line += alphabet[rnd(static_cast<unsigned>(alphabet.size()))];
        same_as_regex(line);
    }
}

TEST_CASE("match_selector: equals conda-build's sel_pat on every recipe line here") {
    std::vector<std::filesystem::path> roots = {sf::test::source_dir() / "recipe", sf::test::data_dir()};
    for (const char* d : {"golden-real", "golden", "rerender-real"})
        if (std::filesystem::exists(sf::test::shared_dir() / d)) roots.push_back(sf::test::shared_dir() / d);
    std::set<std::string> lines;
    for (const auto& root : roots)
        for (const auto& e : std::filesystem::recursive_directory_iterator(root))
            if (e.is_regular_file() && (e.path().extension() == ".yaml" || e.path().extension() == ".yml"))
                for (auto& l : sf::str::split_lines(sf::test::slurp(e.path()))) lines.insert(l);
    long selectors = 0;
    for (const auto& l : lines) {
        same_as_regex(l);
        selectors += sf::recipe::match_selector_by_regex(l).has_value();
    }
    CHECK(lines.size() > 5000);
    CHECK(selectors > 1000);
}

TEST_CASE("environment overlay: os.environ assignments laid over the process environment, never written") {
    ::setenv("SF_TEST_OVERLAY_KEPT", "process", 1);
    ::unsetenv("SF_TEST_OVERLAY_NEW");
    const EnvOverlay overlay = {{"SF_TEST_OVERLAY_NEW", "added"}, {"SF_TEST_OVERLAY_KEPT", "overlaid"}};

    SECTION("a name already there keeps its place, a new one comes last") {
        const auto plain = environment_dict().as_dict();
        const auto d = environment_dict(overlay).as_dict();
        REQUIRE(d.size() == plain.size() + 1);
        for (size_t i = 0; i < plain.size(); ++i) {
            CHECK(d[i].first == plain[i].first);
            if (plain[i].first == "SF_TEST_OVERLAY_KEPT") CHECK(d[i].second.as_string() == "overlaid");
        }
        CHECK(d.back().first == "SF_TEST_OVERLAY_NEW");
        CHECK(d.back().second.as_string() == "added");
    }
    SECTION("selectors see it as names and in os.environ") {
        auto ns = selector_namespace("linux-64", "linux-64", {}, overlay);
        REQUIRE(ns);
        auto eval = [&](const char* e) {
            auto v = sf::jinja::evaluate(e, {"t", 1, 1}, *ns);
            REQUIRE(v);
            return v->truthy();
        };
        CHECK(eval("SF_TEST_OVERLAY_NEW == 'added'"));
        CHECK(eval("os.environ.get('SF_TEST_OVERLAY_KEPT') == 'overlaid'"));
        CHECK(eval("environ['SF_TEST_OVERLAY_NEW'] == 'added'"));
    }
    SECTION("without it, only the process environment") {
        auto ns = selector_namespace("linux-64", "linux-64", {});
        REQUIRE(ns);
        auto v = sf::jinja::evaluate("os.environ.get('SF_TEST_OVERLAY_KEPT', '')", {"t", 1, 1}, *ns);
        REQUIRE(v);
        CHECK(v->as_string() == "process");
    }
    CHECK(std::getenv("SF_TEST_OVERLAY_NEW") == nullptr);
    CHECK(std::string(std::getenv("SF_TEST_OVERLAY_KEPT")) == "process");
    ::unsetenv("SF_TEST_OVERLAY_KEPT");
}
