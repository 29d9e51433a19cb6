#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "testutil.hpp"
#include "types/repodata_sparse.hpp"

using namespace sf::types;
namespace stdfs = std::filesystem;

namespace {

// Both readers' records, as JSON, with what each skipped.
std::vector<std::string> dump(const RepoData& rd) {
    std::vector<std::string> out;
    for (const auto& r : rd.packages) out.push_back(r.fn + " " + r.subdir + " " + r.to_json().dump());
    for (const auto& s : rd.skipped) out.push_back("skipped " + s.name + ": " + s.why.str());
    return out;
}

void same_as_whole(const std::string& text, const std::string& where) {
    INFO(where);
    auto whole = RepoData::parse(text, where, BadRecord::skip);
    auto sparse = SparseRepoData::parse(text, where);
    REQUIRE(whole.has_value() == sparse.has_value());
    if (!whole) {
        CHECK(sparse.error().str() == whole.error().str());
        return;
    }
    auto all = sparse->all();
    CHECK(all.subdir == whole->subdir);
    CHECK(all.base_url == whole->base_url);
    CHECK(dump(all) == dump(*whole));
}

}  // namespace

TEST_CASE("repodata sparse: every repodata.json here reads as RepoData::parse reads it", "[repodata_sparse]") {
    int n = 0;
    for (const auto& e : stdfs::recursive_directory_iterator(sf::test::data_dir()))
        if (e.path().filename() == "repodata.json") same_as_whole(sf::test::slurp(e.path()), e.path().string()), ++n;
    CHECK(n >= 10);
}

TEST_CASE("repodata sparse: repeated keys, escapes, bad and unnamed records, as nlohmann reads them",
          "[repodata_sparse]") {
    const std::string text = R"({
      "info": {"subdir": "linux-64", "base_url": "../pkgs/"}, "repodata_version": 2,
      "packages": {
        "b\u0061r-1.0-0.tar.bz2": {"name": "b\u0061r", "version": "1.0", "build": "0", "build_number": 0,
                                   "depends": ["foo >=1"], "x": {"name": "nested"}},
        "foo-1.0-0.tar.bz2": {"name": "wrong", "version": "1.0", "build": "0", "build_number": 0},
        "foo-1.0-0.tar.bz2": {"name": "foo", "name": "foo", "version": "1.0", "build": "0", "build_number": 0},
        "bad-1.0-0.tar.bz2": {"name": "bad", "version": "1.0", "build": "0", "build_number": "zero"},
        "anon-1.0-0.tar.bz2": {"version": "1.0", "build": "0"},
        "list-1.0-0.tar.bz2": [1, 2.5e3, -0, true, null, "\ud83d\ude00 \u00e9 é"]
      },
      "packages.conda": null,
      "packages.conda": {"foo-2.0-0.conda": {"name": "foo", "version": "2.0", "build": "0", "build_number": 0,
                                             "sha256": "00", "size": 12345678901234567890}}
    })";
    same_as_whole(text, "crafted/repodata.json");
    same_as_whole("\xEF\xBB\xBF{\"packages\": {}}", "bom");
    same_as_whole("{}", "empty");
    same_as_whole(R"({"packages": null, "packages.conda": {}})", "null section");

    auto sparse = SparseRepoData::parse(text, "crafted/repodata.json");
    REQUIRE(sparse);
    CHECK(sparse->names() == std::set<std::string>{"bad", "bar", "foo"});
    auto foo = sparse->records({"foo"});
    REQUIRE(foo.packages.size() == 2);
    CHECK(foo.packages[0].fn == "foo-1.0-0.tar.bz2");  // "packages" before "packages.conda"
    CHECK(foo.packages[1].fn == "foo-2.0-0.conda");
    CHECK(foo.skipped.size() == 2);  // the unnamed ones are reported with every read
    auto bad = sparse->records({"bad"});
    CHECK(bad.packages.empty());
    REQUIRE(bad.skipped.size() == 3);
    CHECK(bad.skipped[0].name.empty());  // by fn: anon, bad, list
    CHECK(bad.skipped[1].name == "bad");
    CHECK(bad.skipped[1].why.str().find("bad-1.0-0.tar.bz2: 'build_number'") != std::string::npos);
}

TEST_CASE("repodata sparse: what nlohmann refuses, the scan refuses with RepoData::parse's error",
          "[repodata_sparse]") {
    const std::vector<std::string> refused = {
        "", "[]", "\"x\"", "{", "{\"packages\": {}", "{\"packages\": {},}", "{\"a\" 1}", "{\"a\": 01}",
        "{\"a\": 1.}", "{\"a\": -}", "{\"a\": 1e}", "{\"a\": 1e999}", "{\"a\": tru}", "{\"a\": \"\x01\"}",
        "{\"a\": \"\\x\"}", "{\"a\": \"\\ud800\"}", "{\"a\": \"\\udc00\"}", "{\"a\": \"\\ud800\\u0041\"}",
        "{\"a\": \"\xC0\x80\"}", "{\"a\": \"\xED\xA0\x80\"}", "{\"a\": \"\xF4\x90\x80\x80\"}", "{\"a\": \"\xE2\x82\"}",
        "{\"a\": \"\x80\"}", "{} x", "{\"packages\": {\"f\": {\"name\": \"x\",}}}", "{\"packages\": 3}",
        "{\"packages.conda\": []}", "{\"packages\": {\"f\": {\"name\": \"x\"}}, \"info\": {\"subdir\": 3}}",
        std::string(200, '[') + std::string(200, ']'),
        "{\"packages\": {\"f\": " + std::string(130, '[') + std::string(130, ']') + "}}",
    };
    for (const auto& text : refused) {
        INFO(text);
        CHECK_FALSE(SparseRepoData::parse(text, "r.json"));
        same_as_whole(text, "r.json");
    }
    const std::vector<std::string> accepted = {
        " {\"a\": [1, -0.5e-3, 0, 1E+2, \"\\u00e9\\\"\\\\\\/\\b\\f\\n\\r\\t\", {}, []]} \n",
        "{\"a\": \"\xF0\x9F\x98\x80 \xE2\x82\xAC \xC3\xA9\"}",
        "{\"a\": 123456789012345678901234567890}",
    };
    for (const auto& text : accepted) {
        INFO(text);
        CHECK(nlohmann::json::accept(text));
        CHECK(SparseRepoData::parse(text, "r.json"));
    }
}
