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
    INFO(what);
    for (const char* p : kPatterns) {
        auto fast = render::section_fast_path(p, text);
        INFO(p);
        REQUIRE(fast);
        CHECK(*fast == by_regex(p, text));
    }
    static const PyRegex output_re(R"(^\ +-\ +(?:name|type):.+?(?=^\w|\Z|^\ +-\ +(?:name|type)))",
                                   PyRegex::multiline | PyRegex::dotall);
    auto fast_blocks = render::output_blocks(text);
    auto re_blocks = output_re.findall(text);
    if (fast_blocks != re_blocks) {
        for (auto& b : fast_blocks) UNSCOPED_INFO("fast " << b.size() << " [" << b.substr(0, 20) << "]");
        for (auto& b : re_blocks) UNSCOPED_INFO("re " << b.size() << " [" << b.substr(0, 20) << "]");
    }
    CHECK(fast_blocks == re_blocks);
    static const PyRegex reqs_re(R"(requirements:.+?(?=^\w|\Z|^\s+-\s(?=name|type)))",
                                 PyRegex::multiline | PyRegex::dotall);
    auto m = reqs_re.search(text);
    CHECK(render::requirements_block(text) == (m ? m->str() : std::string()));
}

}  // namespace

TEST_CASE("section fast path: equals the regex on edge cases") {
    for (std::string t : {"", "\n", "outputs:", "requirements:\n  - a\ntest:\n", "  \n\n  requirements: x\n\n  test: y\n",
                          "package:\n  name: a\nrequirements:\n  host: [b]\n\nabout:\n  x: 1\n",
                          "outputs:\n  - name: a\n    requirements:\n      - b\n  -   name: c\n    test:\n",
                          "requirements:\n  - a\n  -\tname: b\n", "requirements:\n  -name: x\n  - name:\n",
                          "xoutputs:\noutputs: a\n test:\ntest:", "requirements:requirements:\n\ntest:",
                          "outputs:\n  - name: a\n  - name: b", "  - name:", "  - name:x\n", "  - type: a\nx\n  - name: b\n",
                          "a requirements:", "requirements:\n\n   - name\n", "requirements: x\n \n -\ttype: y\n",
                          "requirements:\n  - a\n\n  -  name: b\nc",
                          // Python's \s includes \x1c-\x1f
                          "requirements:\n  - a\n\x1ctest:\n", "requirements:\n  - a\n \x1f-\x1cname: b\n"})
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
