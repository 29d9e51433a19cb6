#include <catch2/catch.hpp>

#include "render/pin_text.hpp"

using namespace sf;

TEST_CASE("pin placeholders round-trip and strip to the bare name") {
    types::Pin p;
    p.name = "libtorch";
    p.max_pin = "x.x";
    p.exact = true;
    auto text = render::pin_placeholder(p);
    auto back = render::read_pin_placeholder(text);
    REQUIRE(back);
    CHECK(*back == p);
    CHECK(render::strip_pin_placeholder(text) == "libtorch");
    CHECK_FALSE(render::read_pin_placeholder("libtorch >=1"));
    CHECK(render::strip_pin_placeholder("libtorch >=1") == "libtorch >=1");
}

TEST_CASE("pin placeholders keep pin_compatible's bounds") {
    types::Pin p;
    p.kind = types::Pin::Kind::compatible;
    p.name = "numpy";
    p.lower_bound = "1.21";
    p.upper_bound = "3";
    auto back = render::read_pin_placeholder(render::pin_placeholder(p));
    REQUIRE(back);
    CHECK(back->kind == types::Pin::Kind::compatible);
    CHECK(back->lower_bound == "1.21");
    CHECK(back->upper_bound == "3");
}
