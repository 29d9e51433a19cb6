// Hostile inputs whose cost, not their content, is the attack: each is
// refused (or done) at a cost bounded by its size, with one line naming the
// package and the cause, and nothing left behind.
#include <catch2/catch.hpp>

#include <fstream>

#include "archive/read.hpp"
#include "craft.hpp"
#include "env/install.hpp"
#include "testutil.hpp"

using namespace sf::test::craft;
using sf::env::install;
using sf::env::InstallOptions;

namespace {

struct Site {
    sf::fs::TempDir tmp{"sf-sec-limits"};
    stdfs::path root = tmp.path();
    stdfs::path channel = root / "channel", prefix = root / "prefix", pkgs = root / "pkgs";
    InstallOptions opts() const {
        InstallOptions o;
        o.channels = {channel};
        o.pkgs_dir = pkgs;
        o.platform = *sf::types::Platform::parse("linux-64");
        return o;
    }
};

// Installs `p` from a fresh channel; returns the one-line error.
std::string refused(const Site& s, const Pkg& p) {
    write_channel(s.channel, {p});
    auto r = install(s.prefix, {p.name}, s.opts());
    REQUIRE_FALSE(r);
    std::string msg = r.error().str();
    CHECK(msg.find('\n') == std::string::npos);
    CHECK_FALSE(stdfs::exists(s.prefix / "conda-meta"));
    return msg;
}

}  // namespace

// One file listed 300,000 times was verified, linked and recorded once per
// listing: minutes, a 44 MB conda-meta record and 300k clobber warnings.
TEST_CASE("security: a path listed twice in paths.json is refused", "[security]") {
    Site s;
    Pkg p = pkg_with("dup", {{"bin/x", 'f', "x\n"}});
    p.edit_paths = [](json& j) {
        for (int i = 0; i < 1000; ++i) j["paths"].push_back(j["paths"][0]);
    };
    std::string msg = refused(s, p);
    CHECK(msg.find("dup-1.0-0.tar.bz2: info/paths.json lists 'bin/x' more than once") != std::string::npos);
}

// An old package without paths.json: its info/files is read instead.
TEST_CASE("security: a path listed twice in info/files is refused", "[security]") {
    Site s;
    Pkg p = pkg_with("dupfiles", {});
    stdfs::path file = s.channel / "linux-64" / p.fn();
    stdfs::create_directories(file.parent_path());
    write_tarball(file,
                  {{"info/index.json", 'f', index_json(p).dump()}, {"info/files", 'f', "bin/x\nbin/x\n"},
                   {"bin/x", 'f', "x\n"}},
                  Filter::bzip2);
    json rec = index_json(p);
    auto d = sf::hash::file_digests(file);
    rec["sha256"] = d->sha256;
    rec["size"] = d->size;
    json rd = {{"info", {{"subdir", "linux-64"}}}, {"packages", {{p.fn(), rec}}}, {"repodata_version", 1}};
    std::ofstream(s.channel / "linux-64/repodata.json") << rd.dump();
    auto r = install(s.prefix, {p.name}, s.opts());
    REQUIRE_FALSE(r);
    CHECK(r.error().str().find("dupfiles-1.0-0.tar.bz2: info/files lists 'bin/x' more than once") != std::string::npos);
}

// Replacing a one-character placeholder turns every "a" of a file into the
// prefix: a 9 KB package ran for 16 minutes. A placeholder is a prefix path.
TEST_CASE("security: a prefix placeholder too short to be a prefix is refused", "[security]") {
    Site s;
    Pkg p = pkg_with("ph", {{"share/f.txt", 'f', std::string(4096, 'a')}});
    p.edit_paths = [](json& j) {
        j["paths"][0]["prefix_placeholder"] = "a";
        j["paths"][0]["file_mode"] = "text";
    };
    std::string msg = refused(s, p);
    CHECK(msg.find("ph-1.0-0: share/f.txt: prefix placeholder 'a' is too short (1 characters, at least 8)") !=
          std::string::npos);
}

// 70,000 empty members in a few hundred KB of bzip2: the block each costs
// against the 256 MiB budget stops the extraction at ~65k, each checked
// before it is written, and the partial tree is removed.
TEST_CASE("security: an archive of many empty members stops at the budget and leaves nothing", "[security]") {
    sf::fs::TempDir tmp("sf-sec-members");
    std::vector<Member> members;
    const size_t n = 70'000;
    for (size_t i = 0; i < n; ++i) members.push_back({"m/" + std::to_string(i), 'f', ""});
    stdfs::path pkg = tmp.path() / "many-1.0-0.tar.bz2";
    write_tarball(pkg, members, Filter::bzip2);
    stdfs::path out = tmp.path() / "out";
    auto r = sf::archive::extract_package(pkg, out);
    REQUIRE_FALSE(r);
    std::string msg = r.error().str();
    INFO(msg);
    CHECK(msg.find("many-1.0-0.tar.bz2: would expand to more than 256 MiB with ") != std::string::npos);
    CHECK(msg.find(" members (each counts 4096 bytes at least)") != std::string::npos);
    CHECK_FALSE(stdfs::exists(out));
    size_t left = 0;
    for ([[maybe_unused]] const auto& e : stdfs::directory_iterator(tmp.path())) ++left;
    CHECK(left == 1);  // the package alone
}

// A 20,000-long dependency chain (3 MB of repodata) overflowed the solver's
// recursion. It solves now; the files are missing, so install stops there.
TEST_CASE("security: a 20,000-long dependency chain is solved, not a crash", "[security]") {
    Site s;
    const int n = 20'000;
    json rd = {{"info", {{"subdir", "linux-64"}}}, {"packages", json::object()}, {"repodata_version", 1}};
    for (int i = 0; i < n; ++i) {
        json deps = json::array();
        if (i + 1 < n) deps.push_back("p" + std::to_string(i + 1));
        rd["packages"]["p" + std::to_string(i) + "-1.0-0.tar.bz2"] = {
            {"name", "p" + std::to_string(i)}, {"version", "1.0"}, {"build", "0"}, {"build_number", 0},
            {"depends", deps}, {"subdir", "linux-64"}};
    }
    stdfs::create_directories(s.channel / "linux-64");
    std::ofstream(s.channel / "linux-64/repodata.json") << rd.dump();
    auto r = install(s.prefix, {"p0"}, s.opts());
    REQUIRE_FALSE(r);
    CHECK(r.error().str().find("p19999-1.0-0.tar.bz2: package file not found") != std::string::npos);
}
