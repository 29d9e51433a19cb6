// util/dir_handle: one section per entry point of fs::Dir, each with the
// symlink or name that must be refused.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "testutil.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

struct Site {
    fs::TempDir tmp{"sf-test-dir"};
    stdfs::path root = tmp.path() / "root", outside = tmp.path() / "outside";
    Site() {
        stdfs::create_directories(root);
        stdfs::create_directories(outside);
        std::ofstream(outside / "victim") << "precious";
    }
    fs::Dir dir() const {
        auto d = fs::Dir::open(root);
        REQUIRE(d);
        return std::move(*d);
    }
    std::string victim() const { return test::slurp(outside / "victim"); }
};

long dead_pid() {
    pid_t p = ::fork();
    if (p == 0) ::_exit(0);
    ::waitpid(p, nullptr, 0);
    return p;
}

}  // namespace

TEST_CASE("dir_handle: temp_name is recognised, and nothing else is", "[fs]") {
    std::string t = fs::temp_name("repodata.json");
    CHECK(t.rfind(".repodata.json.sftmp-", 0) == 0);
    CHECK(fs::temp_name_pid(t) == ::getpid());
    CHECK(fs::temp_name("x") != fs::temp_name("x"));
    CHECK(fs::temp_name(std::string(300, 'a')).size() < 255);
    for (const char* other : {"data.tmp-999999-1", "repodata.json.tmp-1-2", ".x.sftmp-12-abc", "x.sftmp-12-0123456789ab",
                              ".x.sftmp--0123456789ab", ".x.sftmp-12-0123456789AB"})
        CHECK(fs::temp_name_pid(other) == 0);
}

TEST_CASE("dir_handle: is_plain_name", "[fs]") {
    CHECK(fs::is_plain_name("a.txt"));
    CHECK(fs::is_plain_name(".hidden"));
    for (const char* bad : {"", ".", "..", "a/b", "/a"}) CHECK_FALSE(fs::is_plain_name(bad));
    CHECK_FALSE(fs::is_plain_name(std::string("a\0b", 3)));
}

TEST_CASE("dir_handle: open", "[fs]") {
    Site s;
    CHECK_FALSE(fs::Dir::open(s.root / "missing"));
    auto made = fs::Dir::open(s.root / "a/b", fs::Create::yes);
    REQUIRE(made);
    CHECK(stdfs::is_directory(s.root / "a/b"));
    // The root is the caller's own: a symlink naming it is followed.
    stdfs::create_directory_symlink(s.outside, s.tmp.path() / "link");
    CHECK(fs::Dir::open(s.tmp.path() / "link"));
}

TEST_CASE("dir_handle: sub walks without '..' or symlinks", "[fs]") {
    Site s;
    auto d = s.dir();
    stdfs::create_directory_symlink(s.outside, s.root / "out");
    stdfs::create_directory_symlink(".", s.root / "self");
    auto made = d.sub("x/y", fs::Create::yes);
    REQUIRE(made);
    CHECK(made->path() == s.root / "x/y");
    CHECK(d.sub("x//./y"));
    for (const char* bad : {"out", "out/new", "self/x", "../outside", "x/../../outside", "/etc"}) {
        auto r = d.sub(bad, fs::Create::yes);
        CAPTURE(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().kind == ErrorKind::input);
    }
    CHECK(d.sub("out").error().message == "is a symlink; refusing to write through it");
    CHECK_FALSE(stdfs::exists(s.outside / "new"));
    std::ofstream(s.root / "file") << "x";
    CHECK(d.sub("file/z", fs::Create::yes).error().message == "is not a directory");
}

TEST_CASE("dir_handle: kind, open_file and read never follow a symlink", "[fs]") {
    Site s;
    auto d = s.dir();
    std::ofstream(s.root / "f") << "data";
    stdfs::create_symlink(s.outside / "victim", s.root / "l");
    stdfs::create_directory_symlink(s.outside, s.root / "ld");
    CHECK(d.kind("f") == fs::Kind::file);
    CHECK(d.kind("l") == fs::Kind::symlink);
    CHECK(d.kind("nope") == fs::Kind::missing);
    CHECK(*d.read("f") == "data");
    CHECK_FALSE(d.read("l"));
    CHECK_FALSE(d.read("ld/victim"));
    CHECK_FALSE(d.open_file("ld/victim"));
    CHECK_FALSE(d.read("f", 2));  // over the limit
}

TEST_CASE("dir_handle: create_file is exclusive and never follows", "[fs]") {
    Site s;
    auto d = s.dir();
    stdfs::create_symlink(s.outside / "victim", s.root / "l");
    stdfs::create_symlink(s.outside / "new", s.root / "dangling");
    auto fd = d.create_file("n", 0600);
    REQUIRE(fd);
    ::close(*fd);
    CHECK_FALSE(d.create_file("n", 0600));
    CHECK_FALSE(d.create_file("l", 0600));
    CHECK_FALSE(d.create_file("dangling", 0600));
    CHECK_FALSE(d.create_file("../x", 0600));
    CHECK_FALSE(stdfs::exists(s.outside / "new"));
    CHECK(s.victim() == "precious");
}

TEST_CASE("dir_handle: write_atomic replaces a symlink, never writes through it", "[fs]") {
    Site s;
    auto d = s.dir();
    stdfs::create_symlink(s.outside / "victim", s.root / "repodata.json");
    REQUIRE(d.write_atomic("repodata.json", "{}"));
    CHECK(s.victim() == "precious");
    CHECK(d.kind("repodata.json") == fs::Kind::file);
    CHECK(test::slurp(s.root / "repodata.json") == "{}");
    // Only the file itself is left: no temp file.
    CHECK(std::distance(stdfs::directory_iterator(s.root), {}) == 1);
    CHECK_FALSE(d.write_atomic("a/b", "x"));
}

TEST_CASE("dir_handle: write_file_atomic goes through a fresh exclusive temp name", "[fs]") {
    Site s;
    // A guessable temp name planted as a symlink is never the one used.
    for (int n = 0; n < 4; ++n)
        stdfs::create_symlink(s.outside / "victim",
                              s.root / ("out.txt.tmp-" + std::to_string(::getpid()) + "-" + std::to_string(n)));
    REQUIRE(fs::write_file_atomic(s.root / "out.txt", "new"));
    CHECK(s.victim() == "precious");
    CHECK(test::slurp(s.root / "out.txt") == "new");
}

TEST_CASE("dir_handle: rename and remove stay in the directory", "[fs]") {
    Site s;
    auto d = s.dir();
    std::ofstream(s.root / "a") << "a";
    stdfs::create_symlink(s.outside / "victim", s.root / "l");
    REQUIRE(d.rename("a", "b"));
    CHECK(d.kind("b") == fs::Kind::file);
    CHECK_FALSE(d.rename("b", "../b"));
    REQUIRE(d.remove("l"));  // the link goes, its target stays
    CHECK(d.kind("l") == fs::Kind::missing);
    CHECK(s.victim() == "precious");
    CHECK(d.remove("nope"));
    CHECK_FALSE(d.remove("../outside/victim"));
    CHECK(s.victim() == "precious");
}

TEST_CASE("dir_handle: symlink and hardlink", "[fs]") {
    Site s;
    auto d = s.dir();
    std::ofstream(s.root / "f") << "f";
    REQUIRE(d.symlink("f", "l"));
    CHECK(stdfs::read_symlink(s.root / "l") == "f");
    CHECK_FALSE(d.symlink("f", "l"));
    auto sub = d.sub("sub", fs::Create::yes);
    REQUIRE(sub);
    REQUIRE(sub->hardlink(d, "f", "h"));
    CHECK(stdfs::equivalent(s.root / "f", s.root / "sub/h"));
    // A symlink source is linked as itself, never its target.
    stdfs::create_symlink(s.outside / "victim", s.root / "out");
    REQUIRE(sub->hardlink(d, "out", "h2"));
    CHECK(stdfs::is_symlink(s.root / "sub/h2"));
    CHECK_FALSE(sub->hardlink(d, "../outside/victim", "h3"));
}

TEST_CASE("dir_handle: the sweep takes only dead writers' temp names", "[fs]") {
    Site s;
    auto d = s.dir();
    long dead = dead_pid();
    std::string stale = ".x.sftmp-" + std::to_string(dead) + "-0123456789ab";
    std::string live = ".x.sftmp-" + std::to_string(::getpid()) + "-0123456789ab";
    std::string pkg_file = "data.tmp-" + std::to_string(dead) + "-1";  // a package's file, not ours
    std::string link = ".y.sftmp-" + std::to_string(dead) + "-0123456789ab";
    for (const auto& n : {stale, live, pkg_file}) std::ofstream(s.root / n) << "x";
    stdfs::create_symlink(s.outside / "victim", s.root / link);
    CHECK(d.sweep_stale_temps() == 1);
    CHECK_FALSE(stdfs::exists(s.root / stale));
    CHECK(stdfs::exists(s.root / live));
    CHECK(stdfs::exists(s.root / pkg_file));
    CHECK(stdfs::is_symlink(s.root / link));
    CHECK(fs::sweep_stale_temp_files(s.root) == 0);
    CHECK(s.victim() == "precious");
}
