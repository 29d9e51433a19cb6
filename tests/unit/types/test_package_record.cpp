#include <catch2/catch.hpp>

#include <cmath>

#include "testutil.hpp"
#include "types/package_record.hpp"
#include "types/platform.hpp"

using namespace sf::types;

TEST_CASE("repodata: the fixture channel parses", "[package_record]") {
    auto dir = sf::test::data_dir() / "env/fixtures/valid";
    auto rd = RepoData::parse(sf::test::slurp(dir / "noarch/repodata.json"), "noarch/repodata.json");
    REQUIRE(rd);
    CHECK(rd->subdir == "noarch");
    REQUIRE(rd->packages.size() == 1);
    const auto& r = rd->packages[0];
    CHECK(r.name == "demo-tool");
    CHECK(r.version.str() == "0.1.0");
    CHECK(r.build == "0");
    CHECK(r.noarch == "generic");
    CHECK(r.fn == "demo-tool-0.1.0-0.conda");
    CHECK(r.depends == std::vector<std::string>{"demolib >=1.2,<2"});
    CHECK(r.sha256.size() == 64);
    CHECK(r.size.value_or(0) > 0);
    CHECK(r.dist_name() == "demo-tool-0.1.0-0");

    auto lin = RepoData::parse(sf::test::slurp(dir / "linux-64/repodata.json"), "linux-64/repodata.json");
    REQUIRE(lin);
    REQUIRE(lin->packages.size() == 1);
    CHECK(lin->packages[0].fn == "demolib-1.2.0-h0_0.tar.bz2");
    CHECK(lin->packages[0].timestamp.value_or(0) == 1700000000000);
}

TEST_CASE("package record: JSON round trip keeps unknown fields", "[package_record]") {
    nlohmann::json j = {{"name", "foo"}, {"version", "1.0"}, {"build", "h1_0"}, {"build_number", 0},
                        {"depends", {"bar >=1"}}, {"subdir", "linux-64"}, {"custom", 42},
                        {"track_features", "a b"}};
    auto r = PackageRecord::from_json(j, "t");
    REQUIRE(r);
    CHECK(r->track_features == std::vector<std::string>{"a", "b"});
    auto out = r->to_json();
    CHECK(out["custom"] == 42);
    CHECK(out["depends"] == nlohmann::json::array({"bar >=1"}));
    CHECK(out["track_features"] == "a b");
}

TEST_CASE("package record: errors name the source", "[package_record]") {
    auto r = PackageRecord::from_json({{"name", "foo"}, {"build", "0"}}, "x/repodata.json: foo.conda");
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "x/repodata.json: foo.conda: missing or empty 'version'");
    auto v = PackageRecord::from_json({{"name", "foo"}, {"version", "1..0"}, {"build", "0"}}, "f");
    REQUIRE_FALSE(v);
    CHECK(v.error().message == "f: 'version': invalid version '1..0'");
    auto bn = PackageRecord::from_json({{"name", "foo"}, {"version", "1"}, {"build", "0"}, {"build_number", "x"}}, "f");
    REQUIRE_FALSE(bn);
    CHECK(bn.error().message == "f: 'build_number' must be an integer, not string");
    nlohmann::json base = {{"name", "foo"}, {"version", "1"}, {"build", "0"}};
    auto neg = base;
    neg["build_number"] = -1;
    auto nr = PackageRecord::from_json(neg, "f");
    REQUIRE_FALSE(nr);
    CHECK(nr.error().message == "f: 'build_number' must be a non-negative integer, not number");
    for (double t : {std::nan(""), 1e300, -5.0}) {
        auto bt = base;
        bt["timestamp"] = t;
        INFO(t);
        auto tr = PackageRecord::from_json(bt, "f");
        REQUIRE_FALSE(tr);
        CHECK(tr.error().message.find("'timestamp' must be a number of milliseconds since 1970") != std::string::npos);
    }
    auto old = base;
    old["timestamp"] = 1.5e9;  // float timestamps of old records stay readable
    CHECK(PackageRecord::from_json(old, "f")->timestamp.value_or(0) == 1500000000);
    auto rd = RepoData::parse("{not json", "ch/noarch/repodata.json");
    REQUIRE_FALSE(rd);
    CHECK(rd.error().str() == "ch/noarch/repodata.json: not a valid JSON object");
}

TEST_CASE("repodata: an invalid record fails the file, or is left out and named under BadRecord::skip", "[package_record]") {
    const std::string text = R"({"info": {"subdir": "linux-64"}, "packages": {
        "good-1.0-0.tar.bz2": {"name": "good", "version": "1.0", "build": "0", "build_number": 0, "depends": []},
        "bad-1.0-0.tar.bz2": {"name": "bad", "version": "1.0", "build": "0", "build_number": "zero"},
        "anon-1.0-0.tar.bz2": [1, 2]}})";
    auto strict = RepoData::parse(text, "ch/linux-64/repodata.json");
    REQUIRE_FALSE(strict);
    auto lenient = RepoData::parse(text, "ch/linux-64/repodata.json", BadRecord::skip);
    REQUIRE(lenient);
    REQUIRE(lenient->packages.size() == 1);
    CHECK(lenient->packages[0].name == "good");
    REQUIRE(lenient->skipped.size() == 2);
    for (const auto& s : lenient->skipped) {
        INFO(s.why.str());
        if (s.name == "bad") CHECK(s.why.message.find("ch/linux-64/repodata.json: bad-1.0-0.tar.bz2") == 0);
        else CHECK((s.name.empty() && s.why.message.find("anon-1.0-0.tar.bz2") != std::string::npos));
    }
}

TEST_CASE("paths.json parses", "[package_record]") {
    auto p = PathsJson::parse(R"({"paths_version": 1, "paths": [
        {"_path": "bin/x", "path_type": "hardlink", "sha256": "ab", "size_in_bytes": 3,
         "prefix_placeholder": "/ph", "file_mode": "binary"},
        {"_path": "lib/l.so", "path_type": "softlink", "sha256": null, "size_in_bytes": null},
        {"_path": "share/empty", "path_type": "directory"}]})", "paths.json");
    REQUIRE(p);
    REQUIRE(p->paths.size() == 3);
    CHECK(p->paths[0].file_mode == FileMode::binary);
    CHECK(p->paths[0].prefix_placeholder == "/ph");
    CHECK(p->paths[1].type == PathType::softlink);
    CHECK(p->paths[2].type == PathType::directory);
    auto bad = PathsJson::parse(R"({"paths": [{"_path": "x", "path_type": "fifo"}]})", "paths.json");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().str() == "paths.json: x: unknown path_type 'fifo'");
}

TEST_CASE("platform", "[platform]") {
    SECTION("arch and os, as index.json writes them") {
        CHECK(Platform::parse("linux-64")->arch() == "x86_64");
        CHECK(Platform::parse("linux-64")->os() == "linux");
        CHECK(Platform::parse("linux-aarch64")->arch() == "aarch64");
        CHECK(Platform::parse("linux-32")->arch() == "x86");
        CHECK(Platform::parse("osx-arm64")->arch() == "arm64");
        CHECK(Platform::parse("osx-arm64")->os() == "osx");
        CHECK(Platform::parse("win-64")->os() == "win");
        CHECK(Platform::parse("emscripten-wasm32")->arch() == "wasm32");
        CHECK(Platform::parse("noarch")->is_noarch());
        CHECK(Platform::parse("noarch")->arch().empty());
    }
    SECTION("conda-forge toolchain triplets") {
        CHECK(Platform::parse("linux-64")->toolchain_triplet() == "x86_64-conda-linux-gnu");
        CHECK(Platform::parse("linux-aarch64")->toolchain_triplet() == "aarch64-conda-linux-gnu");
        CHECK(Platform::parse("osx-arm64")->toolchain_triplet() == "arm64-apple-darwin20.0.0");
        CHECK(Platform::parse("win-64")->toolchain_triplet().empty());
    }
    SECTION("every known name parses; others do not") {
        for (const auto& n : Platform::known()) CHECK(Platform::parse(n));
        auto bad = Platform::parse("beos-64");
        REQUIRE_FALSE(bad);
        CHECK(bad.error().message == "unknown platform 'beos-64'");
        CHECK_FALSE(Platform::parse("../../etc"));
    }
    SECTION("the default is this machine") {
        CHECK(Platform() == Platform::current());
        CHECK(Platform::parse(Platform::current().name()));
    }
}
