// conda-build 24.11's prefix keys (build.py get_files_with_prefix,
// record_prefix_files) and build/no_link (write_no_link, is_no_link).
#include <catch2/catch.hpp>

#include "package/info.hpp"
#include "package/postprocess.hpp"
#include "package/prefix_rules.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"

using namespace sf;
using namespace sf::package;
namespace stdfs = std::filesystem;

namespace {

const std::string kPrefix = "/opt/build/_placehold_placehold";

// include/demo.h (text, prefix), lib/libdemo.so.1 (binary, prefix),
// bin/demo (no prefix), etc/a.cfg and etc/b.cfg (text, prefix),
// lib/python3.12/x.pyc (binary, prefix), share/.hidden (text, prefix).
void payload(const stdfs::path& dir) {
    test::make_payload(dir, kPrefix);
    test::put(dir / "etc/a.cfg", "root=" + kPrefix + "\n");
    test::put(dir / "etc/b.cfg", "root=" + kPrefix + "\n");
    test::put(dir / "lib/python3.12/x.pyc", std::string("\0\0", 2) + kPrefix);
    test::put(dir / "share/.hidden", kPrefix);
}

std::vector<std::string> recorded(const PostprocessReport& r, std::vector<types::FileMode>* modes = nullptr) {
    std::vector<std::string> out;
    for (const auto& f : r.prefix_files) {
        out.push_back(f.path);
        if (modes) modes->push_back(f.mode);
    }
    return out;
}

Result<PostprocessReport> run(const stdfs::path& dir, const PrefixRules& rules) {
    PostprocessOptions o;
    o.prefix = kPrefix;
    o.rpath = RpathFix::keep;
    o.prefix_rules = rules;
    return postprocess(dir, o);
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("glob_matches and expand_globs follow Python's glob(recursive=True)") {
    CHECK(glob_matches("etc/a.cfg", "etc/*.cfg"));
    CHECK_FALSE(glob_matches("etc/sub/a.cfg", "etc/*.cfg"));
    CHECK(glob_matches("etc/sub/a.cfg", "etc/**/*.cfg"));
    CHECK(glob_matches("etc/a.cfg", "etc/**/*.cfg"));
    CHECK(glob_matches("etc/a.cfg", "./etc/a.cfg"));
    CHECK_FALSE(glob_matches("share/.hidden", "share/*"));
    CHECK(glob_matches("share/.hidden", "share/.*"));
    const V files{"bin/demo", "etc/a.cfg", "etc/b.cfg", "lib/libdemo.so.1"};
    CHECK(expand_globs({"etc"}, files) == std::set<std::string>{"etc/a.cfg", "etc/b.cfg"});
    CHECK(expand_globs({"etc/a.cfg", "lib/*"}, files) == std::set<std::string>{"etc/a.cfg", "lib/libdemo.so.1"});
    CHECK(expand_globs({"nothing/*"}, files).empty());
}

TEST_CASE("without prefix keys: every file holding the prefix, *.pyc excepted") {
    fs::TempDir tmp("sf-pr");
    payload(tmp.path());
    auto r = run(tmp.path(), {});
    REQUIRE(r);
    CHECK(recorded(*r) == V{"etc/a.cfg", "etc/b.cfg", "include/demo.h", "lib/libdemo.so.1", "share/.hidden"});
}

TEST_CASE("build/ignore_prefix_files") {
    fs::TempDir tmp("sf-pr");
    payload(tmp.path());
    PrefixRules rules;
    SECTION("true: no file") {
        rules.ignore = IgnorePrefix::all;
        auto r = run(tmp.path(), rules);
        REQUIRE(r);
        CHECK(r->prefix_files.empty());
    }
    SECTION("a list of paths and globs") {
        rules.ignore_files = {"etc/*.cfg", "lib/libdemo.so.1"};
        auto r = run(tmp.path(), rules);
        REQUIRE(r);
        CHECK(recorded(*r) == V{"include/demo.h", "share/.hidden"});
    }
}

TEST_CASE("build/has_prefix_files: the only text files recorded, binary ones still detected") {
    fs::TempDir tmp("sf-pr");
    payload(tmp.path());
    PrefixRules rules;
    rules.text_files = {"etc/a.cfg"};
    auto r = run(tmp.path(), rules);
    REQUIRE(r);
    CHECK(recorded(*r) == V{"etc/a.cfg", "lib/libdemo.so.1"});
    SECTION("a listed file without the prefix is an error") {
        rules.text_files = {"etc/a.cfg", "bin/demo"};
        auto bad = run(tmp.path(), rules);
        REQUIRE_FALSE(bad);
        CHECK(bad.error().loc.file == "bin/demo");
        CHECK(bad.error().message.find("has_prefix_files") != std::string::npos);
    }
}

TEST_CASE("build/binary_has_prefix_files and detect_binary_files_with_prefix") {
    fs::TempDir tmp("sf-pr");
    payload(tmp.path());
    PrefixRules rules;
    std::vector<types::FileMode> modes;
    SECTION("a listed text file is recorded as binary; unlisted binary files are left alone") {
        rules.binary_files = {"etc/b.cfg"};
        auto r = run(tmp.path(), rules);
        REQUIRE(r);
        CHECK(recorded(*r, &modes) == V{"etc/a.cfg", "etc/b.cfg", "include/demo.h", "share/.hidden"});
        CHECK(modes[1] == types::FileMode::binary);
        CHECK(modes[0] == types::FileMode::text);
    }
    SECTION("with detection asked for, unlisted binary files are recorded too") {
        rules.binary_files = {"etc/b.cfg"};
        rules.detect_binary = BinaryPrefix::detect;
        auto r = run(tmp.path(), rules);
        REQUIRE(r);
        CHECK(recorded(*r) == V{"etc/a.cfg", "etc/b.cfg", "include/demo.h", "lib/libdemo.so.1", "share/.hidden"});
    }
    SECTION("detect_binary_files_with_prefix: false leaves binary files out") {
        rules.detect_binary = BinaryPrefix::ignore;
        auto r = run(tmp.path(), rules);
        REQUIRE(r);
        CHECK(recorded(*r) == V{"etc/a.cfg", "etc/b.cfg", "include/demo.h", "share/.hidden"});
    }
    SECTION("a binary file in has_prefix_files stays binary, and the list is not met") {
        rules.text_files = {"lib/libdemo.so.1"};
        auto r = run(tmp.path(), rules);
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == "lib/libdemo.so.1");
    }
    SECTION("with binary files not detected, a binary file in has_prefix_files is recorded as text") {
        rules.text_files = {"lib/libdemo.so.1"};
        rules.binary_files = {"etc/b.cfg"};
        rules.detect_binary = BinaryPrefix::ignore;
        auto r = run(tmp.path(), rules);
        REQUIRE(r);
        CHECK(recorded(*r, &modes) == V{"etc/b.cfg", "lib/libdemo.so.1"});
        CHECK(modes == std::vector<types::FileMode>{types::FileMode::binary, types::FileMode::text});
    }
}

TEST_CASE("build/no_link marks paths.json entries and writes info/no_link") {
    std::vector<PathEntry> recs(3);
    recs[0].path = "bin/tool";
    recs[1].path = "etc/conf/x.cfg";
    recs[2].path = "share/d";
    recs[2].type = types::PathType::directory;
    mark_no_link(recs, {"etc/*", "share/*"});
    CHECK_FALSE(recs[0].no_link);
    CHECK(recs[1].no_link);  // fnmatch's * crosses '/'
    CHECK_FALSE(recs[2].no_link);
    CHECK(no_link_list(recs) == "etc/conf/x.cfg\n");
    auto info = info_entries(test::demo_meta(), recs, 0);
    REQUIRE(info);
    bool found = false;
    for (const auto& e : *info)
        if (e.name == "info/no_link") found = e.content == "etc/conf/x.cfg\n";
    CHECK(found);
    CHECK(paths_json(recs).find("\"no_link\": true") != std::string::npos);
}

TEST_CASE("index.json takes build/'s extra keys, never over its own") {
    auto m = test::demo_meta();
    m.index_extra = {{"features", "f1 f2"}, {"name", "not-this"}};
    auto j = nlohmann::json::parse(index_json(m, 0));
    CHECK(j.at("features") == "f1 f2");
    CHECK(j.at("name") == "demo");
}
