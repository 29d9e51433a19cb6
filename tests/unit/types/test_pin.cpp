#include <catch2/catch.hpp>

#include "types/pin.hpp"

using namespace sf::types;

TEST_CASE("pin markers round-trip and strip to the bare name") {
    PinMarker m;
    m.name = "libtorch";
    m.max_pin = "x.x";
    m.min_pin = "x.x.x.x.x.x";
    m.exact = true;
    auto enc = encode_pin(m);
    auto dec = decode_pin(enc);
    REQUIRE(dec);
    CHECK(dec->name == "libtorch");
    CHECK(dec->max_pin == "x.x");
    CHECK(dec->exact);
    CHECK(strip_pin(enc) == "libtorch");
    CHECK_FALSE(decode_pin("libtorch >=1"));
}
