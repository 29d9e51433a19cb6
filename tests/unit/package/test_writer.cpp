#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "archive/read.hpp"
#include "package/info.hpp"
#include "package/writer.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"
#include "util/hash.hpp"

using namespace sf;
using namespace sf::package;
namespace stdfs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kPrefix = "/opt/build/_h_env_placehold_placehold_placehold";

struct Built {
    fs::TempDir tmp{"sf-pkg"};
    stdfs::path dir() const { return tmp.path() / "files"; }
    stdfs::path out() const { return tmp.path() / "out"; }
    Built() { test::make_payload(dir(), kPrefix); }
    Result<std::vector<stdfs::path>> write(const PackageMeta& m, WriteOptions o = {}) {
        o.zstd_level = 3;
        PackageInput in{dir(), m, {}};
        in.prefix_files = {{"include/demo.h", kPrefix, types::FileMode::text}, {"lib/libdemo.so.1", kPrefix, types::FileMode::binary}};
        return write_package(in, out(), o);
    }
};

json member_json(const stdfs::path& pkg, const std::string& name) {
    auto text = archive::read_package_member(pkg, name);
    REQUIRE(text);
    return json::parse(*text);
}

}  // namespace

TEST_CASE("write_package writes a .conda with the documented info/ files") {
    Built b;
    auto meta = test::demo_meta();
    meta.depends = {"zlib >=1.2", "libgcc-ng >=12"};
    meta.constrains = {"demo-extra 1.0.*"};
    meta.run_exports.weak = {"demo >=1.0,<2"};
    meta.hash_input = {{"target_platform", "linux-64"}};
    meta.test.commands = {"test -f $PREFIX/include/demo.h"};
    meta.recipe_files = {{"meta.yaml", {}, "package: {name: demo}\n"}};
    meta.license_files = {{"LICENSE", {}, "MIT License\n"}};
    auto written = b.write(meta);
    REQUIRE(written);
    REQUIRE(written->size() == 1);
    const stdfs::path pkg = written->front();
    CHECK(pkg.filename() == "demo-1.0-h0_0.conda");

    auto index = member_json(pkg, "info/index.json");
    CHECK(index["name"] == "demo");
    CHECK(index["version"] == "1.0");
    CHECK(index["build"] == "h0_0");
    CHECK(index["build_number"] == 0);
    CHECK(index["depends"] == json({"libgcc-ng >=12", "zlib >=1.2"}));  // sorted
    CHECK(index["constrains"] == json({"demo-extra 1.0.*"}));
    CHECK(index["subdir"] == "linux-64");
    CHECK(index["arch"] == "x86_64");
    CHECK(index["platform"] == "linux");
    CHECK(index["timestamp"] == 1700000000000);
    CHECK(index["license"] == "MIT");
    CHECK_FALSE(index.contains("noarch"));

    auto raw_index = archive::read_package_member(pkg, "info/index.json");
    CHECK(*raw_index == index.dump(2));  // sorted keys, indent 2

    auto paths = member_json(pkg, "info/paths.json");
    CHECK(paths["paths_version"] == 1);
    std::vector<std::string> names;
    for (const auto& p : paths["paths"]) names.push_back(p["_path"]);
    CHECK(names == std::vector<std::string>{"bin/demo", "include/demo.h", "lib/libdemo.so", "lib/libdemo.so.1",
                                            "share/empty"});
    const auto& header = paths["paths"][1];
    CHECK(header["path_type"] == "hardlink");
    CHECK(header["file_mode"] == "text");
    CHECK(header["prefix_placeholder"] == kPrefix);
    CHECK(header["sha256"] == hash::sha256(test::slurp(b.dir() / "include/demo.h")));
    CHECK(header["size_in_bytes"] == stdfs::file_size(b.dir() / "include/demo.h"));
    CHECK(paths["paths"][2]["path_type"] == "softlink");
    CHECK(paths["paths"][2]["sha256"] == paths["paths"][3]["sha256"]);  // the target's content
    CHECK(paths["paths"][3]["file_mode"] == "binary");
    CHECK(paths["paths"][4]["path_type"] == "directory");

    CHECK(*archive::read_package_member(pkg, "info/files") ==
          "bin/demo\ninclude/demo.h\nlib/libdemo.so\nlib/libdemo.so.1\n");
    CHECK(*archive::read_package_member(pkg, "info/has_prefix") ==
          kPrefix + " text include/demo.h\n" + kPrefix + " binary lib/libdemo.so.1\n");
    CHECK(member_json(pkg, "info/run_exports.json") == json{{"weak", {"demo >=1.0,<2"}}});
    CHECK(member_json(pkg, "info/hash_input.json") == json{{"target_platform", "linux-64"}});
    CHECK(member_json(pkg, "info/about.json")["summary"] == "a demo");
    CHECK(*archive::read_package_member(pkg, "info/recipe/meta.yaml") == "package: {name: demo}\n");
    CHECK(*archive::read_package_member(pkg, "info/licenses/LICENSE") == "MIT License\n");
    CHECK(archive::read_package_member(pkg, "info/test/run_test.sh")->find("test -f $PREFIX/include/demo.h") !=
          std::string::npos);

    SECTION("the zip holds metadata.json, pkg-, info- in that order, STORED") {
        const std::string bytes = test::slurp(pkg);
        std::vector<std::string> names;
        for (std::size_t at = bytes.find("PK\3\4"); at != std::string::npos; at = bytes.find("PK\3\4", at + 4)) {
            if (at + 30 > bytes.size()) break;
            const auto u16 = [&](std::size_t o) {
                return static_cast<unsigned char>(bytes[at + o]) | static_cast<unsigned char>(bytes[at + o + 1]) << 8;
            };
            if (u16(26) == 0 || at + 30 + u16(26) > bytes.size()) continue;
            std::string name = bytes.substr(at + 30, u16(26));
            if (name != "metadata.json" && name.rfind("pkg-", 0) != 0 && name.rfind("info-", 0) != 0) continue;
            CHECK(u16(8) == 0);  // stored
            names.push_back(name);
        }
        CHECK(names == std::vector<std::string>{"metadata.json", "pkg-demo-1.0-h0_0.tar.zst", "info-demo-1.0-h0_0.tar.zst"});
        CHECK(bytes.find(R"({"conda_pkg_format_version": 2})") != std::string::npos);
    }
    SECTION("payload members keep symlinks, modes and empty directories") {
        auto members = archive::list_package(pkg, archive::Part::payload);
        REQUIRE(members);
        REQUIRE(members->size() == 5);
        CHECK((*members)[0].path == "bin/demo");
        CHECK((*members)[0].mode == 0755);
        CHECK((*members)[1].mode == 0644);
        CHECK((*members)[2].type == archive::EntryType::symlink);
        CHECK((*members)[2].link_target == "libdemo.so.1");
        CHECK((*members)[4].type == archive::EntryType::directory);
    }
    SECTION("no run_exports.json or has_prefix when there is nothing to say") {
        auto m2 = test::demo_meta("plain");
        PackageInput in{b.dir(), m2, {}};
        auto w = write_package(in, b.out(), WriteOptions{Format::conda, 3, 1, 9, {}});
        REQUIRE(w);
        auto info = archive::list_package(w->front(), archive::Part::info);
        REQUIRE(info);
        for (const auto& e : *info) {
            CHECK(e.path != "info/run_exports.json");
            CHECK(e.path != "info/has_prefix");
        }
    }
}

TEST_CASE("the same input gives the same bytes") {
    Built b;
    auto meta = test::demo_meta();
    WriteOptions o;
    o.format = Format::both;
    auto first = b.write(meta, o);
    REQUIRE(first);
    REQUIRE(first->size() == 2);
    const std::string conda1 = test::slurp((*first)[0]), bz1 = test::slurp((*first)[1]);
    REQUIRE(!conda1.empty());
    REQUIRE(!bz1.empty());

    SECTION("twice in a row") {
        auto second = b.write(meta, o);
        REQUIRE(second);
        CHECK(test::slurp((*second)[0]) == conda1);
        CHECK(test::slurp((*second)[1]) == bz1);
    }
    SECTION("with another thread count") {
        o.threads = 2;
        auto second = b.write(meta, o);
        REQUIRE(second);
        CHECK(test::slurp((*second)[0]) == conda1);
    }
    SECTION("but a different timestamp changes them") {
        meta.timestamp = 1700000001000;
        auto second = b.write(meta, o);
        REQUIRE(second);
        CHECK(test::slurp((*second)[0]) != conda1);
    }
    SECTION("no temp files are left in the output directory") {
        std::vector<std::string> names;
        for (const auto& e : stdfs::directory_iterator(b.out())) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        CHECK(names == std::vector<std::string>{"demo-1.0-h0_0.conda", "demo-1.0-h0_0.tar.bz2"});
    }
}

TEST_CASE(".tar.bz2 puts info/ first and holds the same payload as .conda") {
    Built b;
    WriteOptions o;
    o.format = Format::both;
    auto w = b.write(test::demo_meta(), o);
    REQUIRE(w);
    auto bz = archive::list_package((*w)[1], archive::Part::all);
    auto conda = archive::list_package((*w)[0], archive::Part::payload);
    REQUIRE(bz);
    REQUIRE(conda);
    REQUIRE(!bz->empty());
    CHECK(bz->front().path == "info/about.json");
    std::vector<std::string> bz_payload, conda_payload;
    bool seen_payload = false;
    for (const auto& e : *bz) {
        bool info = e.path.rfind("info/", 0) == 0;
        if (!info) seen_payload = true;
        CHECK_FALSE((info && seen_payload));  // no info/ member after the payload started
        if (!info) bz_payload.push_back(e.path);
    }
    for (const auto& e : *conda) conda_payload.push_back(e.path);
    CHECK(bz_payload == conda_payload);
    CHECK(*archive::read_package_member((*w)[1], "info/paths.json") ==
          *archive::read_package_member((*w)[0], "info/paths.json"));
}

TEST_CASE("write_package refuses bad input") {
    Built b;
    SECTION("info/ inside the payload") {
        test::put(b.dir() / "info/index.json", "{}");
        auto r = b.write(test::demo_meta());
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("info/") != std::string::npos);
    }
    SECTION("an escaping symlink") {
        stdfs::create_symlink("../../etc/passwd", b.dir() / "bin/evil");
        auto r = b.write(test::demo_meta());
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == "bin/evil");
    }
    SECTION("an absolute symlink") {
        stdfs::create_symlink("/etc/passwd", b.dir() / "bin/evil");
        REQUIRE_FALSE(b.write(test::demo_meta()));
    }
    SECTION("invalid metadata") {
        auto m = test::demo_meta("Demo");
        auto r = b.write(m);
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("invalid package name") != std::string::npos);
    }
    SECTION("a recipe file escaping info/recipe") {
        auto m = test::demo_meta();
        m.recipe_files = {{"../index.json", {}, "{}"}};
        REQUIRE_FALSE(b.write(m));
    }
    CHECK_FALSE(stdfs::exists(b.out() / "demo-1.0-h0_0.conda"));
}

TEST_CASE("noarch packages") {
    Built b;
    auto m = test::demo_meta("demo-data", "2.0", "0");
    m.noarch = sf::types::NoArch::generic;
    m.subdir = sf::types::Platform::noarch();
    auto w = b.write(m);
    REQUIRE(w);
    auto index = member_json(w->front(), "info/index.json");
    CHECK(index["noarch"] == "generic");
    CHECK(index["subdir"] == "noarch");
    CHECK(index["arch"].is_null());
    CHECK(index["platform"].is_null());
}

TEST_CASE("parse_format") {
    CHECK(*parse_format("conda") == Format::conda);
    CHECK(*parse_format("tar.bz2") == Format::tar_bz2);
    CHECK(*parse_format("both") == Format::both);
    CHECK_FALSE(parse_format("zip"));
}
