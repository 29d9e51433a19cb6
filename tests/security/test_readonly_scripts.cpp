// Commands that only read, check or repackage what they are given run
// nothing from it (env::RunScripts): `check` and `libtorch-archive` install a
// package with its pre-link, post-link and pre-unlink scripts off, and so do
// `test --no-scripts` and `install --no-scripts`. Each script here would
// write a marker outside every directory the command was given. The twin:
// plain `install` (and `test`) run the same scripts, so the markers prove
// the scripts work and a silence is no broken package.
#include <catch2/catch.hpp>

#include "craft.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf::test::craft;

namespace {

// bin/.evil-<kind>.sh: each appends its kind to <outside>/marker.
Member script(const std::string& name, const std::string& kind, const stdfs::path& outside) {
    return {"bin/." + name + "-" + kind + ".sh", 'f', "echo " + kind + " >> '" + (outside / "marker").string() + "'\n",
            "", 0755};
}

Pkg evil(const stdfs::path& outside, std::string version = "1.0") {
    Pkg p;
    p.name = "evil";
    p.version = std::move(version);
    p.members = {{"share/evil/data.txt", 'f', "data\n"},
                 script("evil", "pre-link", outside),
                 script("evil", "post-link", outside),
                 script("evil", "pre-unlink", outside),
                 {"info/test/run_test.sh", 'f', "true\n", "", 0755, false}};
    return p;
}

// A libtorch package whose run dependency carries the scripts.
Pkg libtorch() {
    Pkg p;
    p.name = "libtorch";
    p.version = "0.3.0";
    p.build = "cpu_generic_0";
    p.depends = {"evil"};
    p.members = {{"include/torch/torch.h", 'f', "#pragma once\n"}};
    return p;
}

struct Site {
    sf::fs::TempDir tmp{"sf-ro-scripts"};
    stdfs::path root = tmp.path(), outside = root / "outside", channel = root / "channel", work = root / "work";
    Site() {
        stdfs::create_directories(outside);
        stdfs::create_directories(work);
        write_channel(channel, {evil(outside), libtorch()});
    }
    std::string pkg(const std::string& fn) const { return (channel / "linux-64" / fn).string(); }
    std::string marker() const { return stdfs::exists(outside / "marker") ? sf::test::slurp(outside / "marker") : ""; }
};

}  // namespace

TEST_CASE("security: check runs no link script of the package it checks", "[security][scripts]") {
    Site s;
    auto r = sf::test::run_splitforge({"check", s.pkg(evil(s.outside).fn())}, s.work);
    INFO(r.out << r.err);
    CHECK(r.rc == 0);
    CHECK(s.marker().empty());
}

TEST_CASE("security: libtorch-archive runs no link script of a run dependency", "[security][scripts]") {
    Site s;
    auto r = sf::test::run_splitforge({"libtorch-archive", s.pkg(libtorch().fn()), "-o", (s.work / "out").string()}, s.work);
    INFO(r.out << r.err);
    CHECK(r.rc == 0);
    CHECK(s.marker().empty());
}

TEST_CASE("security: install runs link scripts, install --no-scripts does not", "[security][scripts]") {
    Site s;
    const std::string pkgs = (s.work / "pkgs").string();
    SECTION("the twin: plain install runs pre-link, post-link, then pre-unlink on an upgrade") {
        auto r = sf::test::run_splitforge({"install", "-p", (s.work / "p").string(), "--pkgs-dir", pkgs, s.pkg(evil(s.outside).fn())}, s.work);
        INFO(r.out << r.err);
        REQUIRE(r.rc == 0);
        CHECK(s.marker() == "pre-link\npost-link\n");
        auto v2 = write_pkg(s.root / "v2", evil(s.outside, "2.0"));
        r = sf::test::run_splitforge({"install", "-p", (s.work / "p").string(), "--pkgs-dir", pkgs, v2.string()}, s.work);
        INFO(r.out << r.err);
        REQUIRE(r.rc == 0);
        CHECK(s.marker() == "pre-link\npost-link\npre-unlink\npre-link\npost-link\n");
    }
    SECTION("--no-scripts: none of the three") {
        auto r = sf::test::run_splitforge({"install", "--no-scripts", "-p", (s.work / "p").string(), "--pkgs-dir", pkgs,
                             s.pkg(evil(s.outside).fn())},
                            s.work);
        INFO(r.out << r.err);
        REQUIRE(r.rc == 0);
        auto v2 = write_pkg(s.root / "v2", evil(s.outside, "2.0"));
        r = sf::test::run_splitforge({"install", "--no-scripts", "-p", (s.work / "p").string(), "--pkgs-dir", pkgs, v2.string()}, s.work);
        INFO(r.out << r.err);
        REQUIRE(r.rc == 0);
        CHECK(stdfs::exists(s.work / "p/share/evil/data.txt"));
        CHECK(s.marker().empty());
    }
}

TEST_CASE("security: test --no-scripts makes its test prefix without link scripts", "[security][scripts]") {
    Site s;
    SECTION("the twin: test runs them, as conda-build's test does") {
        auto r = sf::test::run_splitforge({"test", "-q", s.pkg(evil(s.outside).fn())}, s.work);
        INFO(r.out << r.err);
        CHECK(r.rc == 0);
        CHECK(s.marker() == "pre-link\npost-link\n");
    }
    SECTION("--no-scripts") {
        auto r = sf::test::run_splitforge({"test", "-q", "--no-scripts", s.pkg(evil(s.outside).fn())}, s.work);
        INFO(r.out << r.err);
        CHECK(r.rc == 0);
        CHECK(r.out.find("test passed") != std::string::npos);
        CHECK(s.marker().empty());
    }
}
