// The section extractions computed without a regex give what conda-build's
// regexes give, on every meta.yaml we have and on edge cases.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "render/meta.hpp"
#include "testutil.hpp"
#include "util/pyregex.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

const char* const kPatterns[] = {
    R"((^outputs:.*?)(?=^test:|^extra:|^about:|\Z))",
    R"((^requirements:.*?)(?=^test:|^extra:|^about:|^outputs:|\Z))",
    R"((^\s*requirements:.*?)(?=^\s*test:|^\s*extra:|^\s*about:|^\s*-\s+name:|^outputs:|\Z))",
    R"((^.*?)(?=^requirements:|^test:|^extra:|^about:|^outputs:|\Z))",
};

std::string by_regex(const char* pattern, const std::string& text) {
    auto m = PyRegex(pattern, PyRegex::multiline | PyRegex::dotall).search(text);
    return m && m->group(1) ? *m->group(1) : std::string();
}

void check_all(const std::string& text, const std::string& what) {
    for (const char* p : kPatterns) {
        auto fast = render::section_fast_path(p, text);
        INFO(what << "\n" << p);
        REQUIRE(fast);
        CHECK(*fast == by_regex(p, text));
    }
}

}  // namespace

TEST_CASE("section fast path: equals the regex on edge cases") {
    for (std::string t : {"", "\n", "outputs:", "requirements:\n  - a\ntest:\n", "  \n\n  requirements: x\n\n  test: y\n",
                          "package:\n  name: a\nrequirements:\n  host: [b]\n\nabout:\n  x: 1\n",
                          "outputs:\n  - name: a\n    requirements:\n      - b\n  -   name: c\n    test:\n",
                          "requirements:\n  - a\n  -\tname: b\n", "requirements:\n  -name: x\n  - name:\n",
                          "xoutputs:\noutputs: a\n test:\ntest:", "requirements:requirements:\n\ntest:"})
        check_all(t, t);
    CHECK(!render::section_fast_path("(^foo:.*?)(?=\\Z)", "foo:"));
}

TEST_CASE("section fast path: equals the regex on every recipe here") {
    std::vector<stdfs::path> roots = {test::source_dir() / "recipe", test::data_dir()};
    if (stdfs::exists(test::shared_dir() / "golden-real")) roots.push_back(test::shared_dir() / "golden-real");
    int n = 0;
    for (const auto& root : roots) {
        for (const auto& e : stdfs::recursive_directory_iterator(root)) {
            if (!e.is_regular_file() || e.path().filename() != "meta.yaml") continue;
            std::ifstream in(e.path());
            std::stringstream ss;
            ss << in.rdbuf();
            check_all(ss.str(), e.path().string());
            ++n;
        }
    }
    CHECK(n > 50);
}
