#include <catch2/catch.hpp>

#include "jinja/jinja.hpp"

using namespace sf::jinja;

TEST_CASE("smoke") {
    Context ctx;
    auto r = render("{{ 1 + 2 }}", Origin{"t"}, ctx);
    REQUIRE(r);
    CHECK(*r == "3");
}
