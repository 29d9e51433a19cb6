#include <catch2/catch.hpp>

#include "env/install.hpp"

using namespace sf::env;

TEST_CASE("prefix: text replaces every occurrence", "[prefix]") {
    CHECK(*replace_prefix_text("a=/ph/x b=/ph/y\n/ph", "/ph", "/opt/env") == "a=/opt/env/x b=/opt/env/y\n/opt/env");
    CHECK(*replace_prefix_text("nothing here", "/ph", "/p") == "nothing here");
}

TEST_CASE("prefix: long shebangs go through /usr/bin/env", "[prefix]") {
    std::string ph = "/PH";
    std::string longp = "/" + std::string(130, 'p');
    auto out = replace_prefix_text("#!/PH/bin/python3 -u\nprint(1)\n", ph, longp);
    CHECK(*out == "#!/usr/bin/env python3 -u\nprint(1)\n");
    auto short_ok = replace_prefix_text("#!/PH/bin/python3\n", ph, "/opt/e");
    CHECK(*short_ok == "#!/opt/e/bin/python3\n");
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

// Replacing in place moved the tail at every hit: 320k hits of a 252-byte
// placeholder (80 MB) took minutes. One pass takes well under a second; the
// test's CTest TIMEOUT (tests/CMakeLists.txt, "linear time") catches a
// quadratic one without timing anything here.
TEST_CASE("prefix: 320k placeholders are replaced in linear time", "[prefix]") {
    const std::string ph = "/" + std::string(251, 'p'), prefix = "/opt/env";
    std::string line = ph + "/bin:" + ph + "\n", data;
    for (int i = 0; i < 160'000; ++i) data += line;
    auto text = replace_prefix_text(data, ph, prefix);
    REQUIRE(text);
    CHECK(text->size() == 160'000 * (prefix.size() * 2 + 6));
    CHECK(text->substr(0, 2 * prefix.size() + 6) == prefix + "/bin:" + prefix + "\n");
    CHECK(text->find("pppp") == std::string::npos);

    std::string bin;  // one C string holding them all, and the NUL padding after it
    for (int i = 0; i < 320'000; ++i) bin += ph;
    bin += std::string(1, '\0') + "tail";
    auto r = replace_prefix_binary(bin, ph, prefix);
    REQUIRE(r);
    REQUIRE(r->size() == bin.size());
    CHECK(r->compare(0, 2 * prefix.size(), prefix + prefix) == 0);
    CHECK(r->find_first_not_of('\0', 320'000 * prefix.size()) == bin.size() - 4);
}

TEST_CASE("prefix: a text replacement over its size limit is refused before it is built", "[prefix]") {
    std::string data(1000, 'a');
    auto r = replace_prefix_text(data, "a", std::string(100, '/'), 50'000);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "replacing the prefix placeholder 1000 times would make 100000 bytes, over the limit of 50000");
    CHECK(replace_prefix_text(data, "a", std::string(100, '/'), 100'000));
    CHECK(replace_prefix_text(data, "a", "", 1000));  // never over what it was
}

TEST_CASE("prefix: placeholders shorter than a prefix could be are refused", "[prefix]") {
    CHECK_FALSE(check_placeholder(""));
    CHECK_FALSE(check_placeholder("a"));
    CHECK_FALSE(check_placeholder("/opt/x"));
    CHECK_FALSE(check_placeholder(std::string("/opt/x\0yz", 9)));
    auto r = check_placeholder("/");
    REQUIRE_FALSE(r);
    CHECK(r.error().message ==
          "prefix placeholder '/' is too short (1 characters, at least 8); a placeholder is the prefix the package "
          "was built in");
    CHECK(check_placeholder("/opt/anaconda1anaconda2anaconda3"));
    CHECK(check_placeholder("/opt/env"));
}
