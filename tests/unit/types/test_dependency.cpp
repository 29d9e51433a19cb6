#include <catch2/catch.hpp>

#include "types/dependency.hpp"

using namespace sf::types;

TEST_CASE("dependency: a spec keeps its text, a pin prints its name") {
    auto d = Dependency::parse("numpy >=1.21,<3");
    REQUIRE(d);
    CHECK_FALSE(d->is_pin());
    CHECK(d->str() == "numpy >=1.21,<3");
    CHECK(d->name() == "numpy");
    REQUIRE(d->spec());
    CHECK(d->spec()->version().str() == ">=1.21,<3");

    Pin p;
    p.name = "libfoo";
    p.exact = true;
    Dependency pin(p);
    CHECK(pin.is_pin());
    CHECK(pin.str() == "libfoo");
    CHECK(pin.name() == "libfoo");
    REQUIRE(pin.pin());
    CHECK(pin.pin()->exact);
}

TEST_CASE("dependency: an invalid spec is an error naming it") {
    auto d = Dependency::parse("foo[version=");
    REQUIRE_FALSE(d);
    CHECK(d.error().message.find("foo[version=") != std::string::npos);
    auto l = parse_dependencies({"a", "b >=1", "c ==="});
    REQUIRE_FALSE(l);
}
