// PEP 440 versions: normalisation and pip's order (packaging.version), and
// PEP 503 names.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "types/pep440.hpp"

using sf::types::Pep440Version;

namespace {
Pep440Version v(const char* s) {
    auto r = Pep440Version::parse(s);
    INFO(s);
    REQUIRE(r);
    return *r;
}
}  // namespace

TEST_CASE("pep440: spellings normalise as PEP 440 says", "[pep440]") {
    CHECK(v("v1.0").str() == "1.0");
    CHECK(v("1.0-RC.1").str() == "1.0rc1");
    CHECK(v("1.0alpha2").str() == "1.0a2");
    CHECK(v("1.0c3").str() == "1.0rc3");
    CHECK(v("1.0-1").str() == "1.0.post1");
    CHECK(v("1.0_rev2").str() == "1.0.post2");
    CHECK(v("1.0.post").str() == "1.0.post0");
    CHECK(v("1.0-dev").str() == "1.0.dev0");
    CHECK(v("01.002").str() == "1.2");
    CHECK(v("0.3.0.dev20261202+CPU").str() == "0.3.0.dev20261202+cpu");
    CHECK(v("0.3.0.dev20261202+cpu").public_str() == "0.3.0.dev20261202");
    CHECK(v("1!2.0+ubuntu-1_2").str() == "1!2.0+ubuntu.1.2");
    CHECK(v("0.3.0.dev1").is_dev());
    CHECK(!v("0.3.0+cu130").is_dev());
}

TEST_CASE("pep440: what is not a version is an error naming it", "[pep440]") {
    for (const char* bad : {"", "1.0-", "x1", "1..0", "1.0+", "1.0+a..b", "1.0 2"}) {
        auto r = Pep440Version::parse(bad);
        INFO(bad);
        REQUIRE(!r);
        CHECK(r.error().message.find("is not a PEP 440 version") != std::string::npos);
    }
    CHECK(!Pep440Version::parse("1.99999999999999999999"));
}

TEST_CASE("pep440: pip's order", "[pep440]") {
    // packaging's documented order, low to high.
    const std::vector<const char*> order = {
        "1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2",
        "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7",
        "1.0+5", "1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1", "0!2.0", "1!0.1"};
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
        INFO(order[i] << " < " << order[i + 1]);
        if (std::string(order[i + 1]) == "0!2.0") continue;  // 1.1.dev1 < 2.0 holds, checked below
        CHECK(v(order[i]) < v(order[i + 1]));
    }
    CHECK(v("1.1.dev1") < v("0!2.0"));
    CHECK(v("1.0") == v("1.0.0"));
    CHECK(v("1.0rc1") == v("1.0c1"));
    CHECK(v("0.3.0.dev20261201+cpu") < v("0.3.0.dev20261202+cpu"));
    CHECK(v("0.3.0.dev20261202+cpu") < v("0.3.0"));
    CHECK(v("1.0+1.a") < v("1.0+1.a.0"));
    CHECK(v("1.0+a") < v("1.0+1"));
    CHECK(v("1.0+009") == v("1.0+9"));
    std::vector<Pep440Version> shuffled;
    for (auto s : {"2.0", "1.0.dev1", "1.0", "1.0a1", "1.0.post1", "1.0+cpu"}) shuffled.push_back(v(s));
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));
    std::sort(shuffled.begin(), shuffled.end());
    std::vector<std::string> got;
    for (const auto& x : shuffled) got.push_back(x.str());
    CHECK(got == std::vector<std::string>{"1.0.dev1", "1.0a1", "1.0", "1.0+cpu", "1.0.post1", "2.0"});
}

TEST_CASE("pep440: PEP 503 names", "[pep440]") {
    CHECK(sf::types::pep503_name("Torch") == "torch");
    CHECK(sf::types::pep503_name("friendly-bard") == "friendly-bard");
    CHECK(sf::types::pep503_name("Friendly.Bard") == "friendly-bard");
    CHECK(sf::types::pep503_name("FRIENDLY__-._BARD") == "friendly-bard");
    CHECK(sf::types::pep503_name("a_b") == "a-b");
}
