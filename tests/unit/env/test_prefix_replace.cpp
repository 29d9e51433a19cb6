#include <catch2/catch.hpp>

#include "env/install.hpp"

using namespace sf::env;

TEST_CASE("prefix: text replaces every occurrence", "[prefix]") {
    CHECK(replace_prefix_text("a=/ph/x b=/ph/y\n/ph", "/ph", "/opt/env") == "a=/opt/env/x b=/opt/env/y\n/opt/env");
    CHECK(replace_prefix_text("nothing here", "/ph", "/p") == "nothing here");
}

TEST_CASE("prefix: long shebangs go through /usr/bin/env", "[prefix]") {
    std::string ph = "/PH";
    std::string longp = "/" + std::string(130, 'p');
    auto out = replace_prefix_text("#!/PH/bin/python3 -u\nprint(1)\n", ph, longp);
    CHECK(out == "#!/usr/bin/env python3 -u\nprint(1)\n");
    auto short_ok = replace_prefix_text("#!/PH/bin/python3\n", ph, "/opt/e");
    CHECK(short_ok == "#!/opt/e/bin/python3\n");
}

TEST_CASE("prefix: binary pads each C string with NULs", "[prefix]") {
    std::string ph = "/placeholder_long";  // 17 chars
    std::string data = std::string("\x01\x02", 2) + "/placeholder_long/lib:/placeholder_long/x" + std::string(1, '\0') +
                       "tail/placeholder_long" + std::string(1, '\0') + "end";
    auto r = replace_prefix_binary(data, ph, "/p");
    REQUIRE(r);
    CHECK(r->size() == data.size());
    std::string expect = std::string("\x01\x02", 2) + "/p/lib:/p/x" + std::string(1 + 2 * 15, '\0') + "tail/p" +
                         std::string(1 + 15, '\0') + "end";
    CHECK(*r == expect);
}

TEST_CASE("prefix: a placeholder not followed by a NUL is left alone", "[prefix]") {
    auto r = replace_prefix_binary("x/placeholder_long/y", "/placeholder_long", "/p");
    REQUIRE(r);
    CHECK(*r == "x/placeholder_long/y");
}

TEST_CASE("prefix: a longer prefix is an error", "[prefix]") {
    auto r = replace_prefix_binary(std::string("/ph\0", 4), "/ph", "/longer");
    REQUIRE_FALSE(r);
    CHECK(r.error().str() ==
          "the prefix '/longer' (7 characters) is longer than the binary placeholder (3 characters) "
          "(install into a shorter prefix)");
}
