#include <catch2/catch.hpp>

#include "util/hash.hpp"

using namespace sf;

TEST_CASE("hash::hex matches known digests") {
    SECTION("sha1 of empty") { CHECK(hash::sha1("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709"); }
    SECTION("sha256 of abc") {
        CHECK(hash::sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
    SECTION("md5 of abc") { CHECK(hash::md5("abc") == "900150983cd24fb0d6963f7d28e17f72"); }
}
