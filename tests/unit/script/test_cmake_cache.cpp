#include <catch2/catch.hpp>

#include "script/cmake_cache.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf;
using script::CMakeCache;

namespace {

CMakeCache parse_ok(std::string_view text) {
    auto c = CMakeCache::parse(text);
    REQUIRE(c);
    return *c;
}

const auto kSample = [] { return test::data_dir() / "script" / "CMakeCache.python311.txt"; };

}  // namespace

TEST_CASE("cmake_cache: a real CMakeCache.txt round-trips byte for byte") {
    std::string text = test::slurp(kSample());
    REQUIRE(text.size() > 1000);
    auto c = parse_ok(text);
    CHECK(c.serialize() == text);
    CHECK_FALSE(c.modified());
    CHECK(c.diff("x").empty());
    CHECK(c.entries().size() > 50);
}

TEST_CASE("cmake_cache: odd lines round-trip and parse") {
    const std::string text =
        "# comment\r\n"
        "//help for A\r\n"
        "A:STRING=one\r\n"
        "\r\n"
        "  B:BOOL=ON   \n"
        "\"KEY:WITH:COLON\":STRING=v=w\n"
        "UNTYPED=plain value\n"
        "\"QUOTED\"=q\n"
        "TRAIL:STRING='ends in space '\n"
        "EMPTY:PATH=\n"
        "\t\n"
        "LAST:INTERNAL=no newline";
    auto c = parse_ok(text);
    CHECK(c.serialize() == text);
    CHECK(c.get("A")->value == "one");
    CHECK(c.get("A")->type == "STRING");
    CHECK(c.get("B")->value == "ON");
    CHECK(c.get("KEY:WITH:COLON")->value == "v=w");
    CHECK(c.get("UNTYPED")->type.empty());
    CHECK(c.get("UNTYPED")->value == "plain value");
    CHECK(c.get("QUOTED")->value == "q");
    CHECK(c.get("TRAIL")->value == "ends in space ");
    CHECK(c.get("EMPTY")->value.empty());
    CHECK(c.get("LAST")->value == "no newline");
    CHECK_FALSE(c.get("MISSING"));

    SECTION("a changed CRLF line keeps its line ending") {
        c.set("A", "STRING", "two");
        CHECK(str::starts_with(c.serialize(), "# comment\r\n//help for A\r\nA:STRING=two\r\n\r\n"));
    }
    SECTION("a quoted key stays quoted, a value ending in a blank is protected") {
        c.set("KEY:WITH:COLON", "STRING", "x ");
        CHECK(c.serialize().find("\"KEY:WITH:COLON\":STRING='x '\n") != std::string::npos);
    }
    SECTION("appending after an unterminated last line terminates it") {
        c.set("NEW", "INTERNAL", "1");
        CHECK(str::ends_with(c.serialize(), "LAST:INTERNAL=no newline\n//Set by splitforge\nNEW:INTERNAL=1\n"));
    }
}

TEST_CASE("cmake_cache: a line CMake would reject is an error with its line") {
    auto c = CMakeCache::parse("A:STRING=1\njust words\n", "build/CMakeCache.txt");
    REQUIRE_FALSE(c);
    CHECK(c.error().str() ==
          "build/CMakeCache.txt:2: cannot parse cache line 'just words' (expected KEY:TYPE=VALUE, a // or # "
          "comment, or a blank line)");
    CHECK_FALSE(CMakeCache::parse(":STRING=nokey\n"));
    CHECK_FALSE(CMakeCache::parse("\"unterminated:STRING=x\n"));
}

TEST_CASE("cmake_cache: set changes one line in place and diffs it") {
    auto c = parse_ok(test::slurp(kSample()));
    c.set("USE_MAGMA", "BOOL", "ON");
    CHECK(c.get("USE_MAGMA")->value == "ON");
    CHECK(c.diff("CMakeCache.txt") ==
          "--- CMakeCache.txt\n+++ CMakeCache.txt\n"
          "@@ -234 +234 @@\n-USE_MAGMA:BOOL=OFF\n+USE_MAGMA:BOOL=ON\n");
    // Every other line is untouched.
    auto before = str::split_lines(test::slurp(kSample()));
    auto after = str::split_lines(c.serialize());
    REQUIRE(before.size() == after.size());
    for (size_t i = 0; i < before.size(); ++i)
        if (i != 233) CHECK(before[i] == after[i]);

    SECTION("setting it back is no change at all") {
        c.set("USE_MAGMA", "BOOL", "OFF");
        CHECK_FALSE(c.modified());
        CHECK(c.serialize() == test::slurp(kSample()));
    }
    SECTION("setting the same value is a no-op") {
        auto d = parse_ok(test::slurp(kSample()));
        d.set("USE_MAGMA", "BOOL", "OFF");
        CHECK_FALSE(d.modified());
    }
}

TEST_CASE("cmake_cache: new entries go where CMake would put them") {
    const std::string text =
        "########################\n# EXTERNAL cache entries\n########################\n\n"
        "//help\nA:BOOL=ON\n\n\n"
        "########################\n# INTERNAL cache entries\n########################\n\n"
        "//internal help\nI:INTERNAL=1\n";
    auto c = parse_ok(text);
    c.set("USE_MAGMA", "BOOL", "ON");
    c.set("SF_MARK", "INTERNAL", "x");
    CHECK(c.serialize() ==
          "########################\n# EXTERNAL cache entries\n########################\n\n"
          "//help\nA:BOOL=ON\n\n//Set by splitforge\nUSE_MAGMA:BOOL=ON\n\n\n"
          "########################\n# INTERNAL cache entries\n########################\n\n"
          "//internal help\nI:INTERNAL=1\n//Set by splitforge\nSF_MARK:INTERNAL=x\n");
    CHECK(c.diff("f") ==
          "--- f\n+++ f\n"
          "@@ -7,0 +8,3 @@\n+//Set by splitforge\n+USE_MAGMA:BOOL=ON\n+\n"
          "@@ -14,0 +18,2 @@\n+//Set by splitforge\n+SF_MARK:INTERNAL=x\n");
    SECTION("erasing an added entry leaves no trace") {
        c.erase("USE_MAGMA");
        c.erase("SF_MARK");
        // The blank line after the added external entry stays; the rest is gone.
        CHECK(c.entries().size() == 2);
        CHECK(c.diff("f") == "--- f\n+++ f\n@@ -7,0 +8 @@\n+\n");
    }
}

TEST_CASE("cmake_cache: erase drops the entry, its help and its properties") {
    auto c = parse_ok(test::slurp(kSample()));
    REQUIRE(c.get("PYTHON_LIBRARY"));
    REQUIRE(c.get("PYTHON_LIBRARY-ADVANCED"));
    CHECK(c.erase("PYTHON_LIBRARY"));
    CHECK_FALSE(c.erase("PYTHON_LIBRARY"));
    CHECK_FALSE(c.get("PYTHON_LIBRARY"));
    CHECK_FALSE(c.get("PYTHON_LIBRARY-ADVANCED"));
    std::string out = c.serialize();
    CHECK(out.find("PYTHON_LIBRARY:") == std::string::npos);
    CHECK(out.find("//ADVANCED property for variable: PYTHON_LIBRARY\n") == std::string::npos);
    CHECK(out.find("PYTHON_LIBRARY_DEBUG:FILEPATH=") != std::string::npos);
    std::string d = c.diff("f");
    CHECK(d.find("-//Path to a library.\n-PYTHON_LIBRARY:FILEPATH=") != std::string::npos);
    CHECK(d.find("-//ADVANCED property for variable: PYTHON_LIBRARY\n-PYTHON_LIBRARY-ADVANCED:INTERNAL=1\n") !=
          std::string::npos);

    SECTION("erase_if") {
        size_t n = c.erase_if([](const script::CacheEntry& e) { return str::starts_with(e.key, "_Python3_"); });
        CHECK(n > 5);
        for (const auto& e : c.entries()) CHECK_FALSE(str::starts_with(e.key, "_Python3_"));
        CHECK(c.get("_Python_EXECUTABLE"));
    }
}

TEST_CASE("cmake_cache: parse_assignment") {
    auto e = script::parse_assignment("USE_MAGMA:BOOL=ON");
    REQUIRE(e);
    CHECK(e->key == "USE_MAGMA");
    CHECK(e->type == "BOOL");
    CHECK(e->value == "ON");
    auto u = script::parse_assignment("X=1");
    REQUIRE(u);
    CHECK(u->type.empty());
    CHECK_FALSE(script::parse_assignment("no-equals"));
    CHECK_FALSE(script::parse_assignment(""));
}

TEST_CASE("cmake_cache: edit_cache_file writes atomically unless dry-run") {
    fs::TempDir dir("sf-cache");
    auto file = dir.path() / "CMakeCache.txt";
    std::string text = test::slurp(kSample());
    REQUIRE(fs::write_file_atomic(file, text));
    auto flip = [](CMakeCache& c) -> Result<void> {
        c.set("USE_MAGMA", "BOOL", "ON");
        return {};
    };
    auto d = script::edit_cache_file(file, flip, script::DryRun::yes);
    REQUIRE(d);
    CHECK(d->find("+USE_MAGMA:BOOL=ON") != std::string::npos);
    CHECK(test::slurp(file) == text);

    auto w = script::edit_cache_file(file, flip, script::DryRun::no);
    REQUIRE(w);
    CHECK(*w == *d);
    CHECK(test::slurp(file) == str::replace_all(text, "USE_MAGMA:BOOL=OFF", "USE_MAGMA:BOOL=ON"));
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 1);  // no temp files left

    auto missing = script::edit_cache_file(dir.path() / "nope.txt", flip, script::DryRun::no);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message == "cannot read CMake cache");
}
