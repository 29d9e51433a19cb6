#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "archive/tree_archive.hpp"
#include "util/fs.hpp"

using namespace sf::archive;
namespace stdfs = std::filesystem;

namespace {

timespec mtime_of(const stdfs::path& p) {
    struct stat st {};
    REQUIRE(::lstat(p.c_str(), &st) == 0);
    return st.st_mtim;
}

void set_mtime(const stdfs::path& p, long sec, long nsec) {
    timespec ts[2] = {{sec, nsec}, {sec, nsec}};
    REQUIRE(::utimensat(AT_FDCWD, p.c_str(), ts, AT_SYMLINK_NOFOLLOW) == 0);
}

}  // namespace

// ninja decides what to rebuild from mtimes: a restored build tree must keep
// them to the nanosecond, and keep empty directories (CMakeFiles/ dirs).
TEST_CASE("tree archive: mtimes to the nanosecond, empty dirs and symlinks survive a round trip", "[tree_archive]") {
    sf::fs::TempDir tmp("sf-test-tree-archive");
    const stdfs::path src = tmp.path() / "src";
    stdfs::create_directories(src / "build/empty");
    std::ofstream(src / "build/a.o") << "object";
    stdfs::create_symlink("a.o", src / "build/link.o");
    set_mtime(src / "build/a.o", 1700000000, 123456789);
    set_mtime(src / "build/empty", 1700000100, 987654321);

    auto entries = tree_with_dirs(src, "top");
    REQUIRE(entries);
    const stdfs::path file = tmp.path() / "t.tar.zst";
    REQUIRE(write_tree_archive(file, *entries, Compression{Codec::zstd, 3, 1}));

    const stdfs::path dest = tmp.path() / "dest";
    auto ok = extract_tree_archive(file, dest);
    INFO((ok ? std::string() : ok.error().message));
    REQUIRE(ok);
    const stdfs::path a = dest / "top/build/a.o";
    REQUIRE(stdfs::is_regular_file(a));
    CHECK(mtime_of(a).tv_sec == 1700000000);
    CHECK(mtime_of(a).tv_nsec == 123456789);
    CHECK(stdfs::is_directory(dest / "top/build/empty"));
    CHECK(mtime_of(dest / "top/build/empty").tv_sec == 1700000100);
    CHECK(mtime_of(dest / "top/build/empty").tv_nsec == 987654321);
    CHECK(stdfs::is_symlink(dest / "top/build/link.o"));
    CHECK(stdfs::read_symlink(dest / "top/build/link.o") == "a.o");
}

TEST_CASE("tree archive: the destination must not exist, and a missing first member is an error", "[tree_archive]") {
    sf::fs::TempDir tmp("sf-test-tree-archive");
    const stdfs::path src = tmp.path() / "src";
    stdfs::create_directories(src);
    std::ofstream(src / "f") << "x";
    auto entries = tree_with_dirs(src, "top");
    REQUIRE(entries);
    TarEntry manifest;
    manifest.name = "manifest.json";
    manifest.content = "{}";
    const stdfs::path file = tmp.path() / "t.tar.zst", with = tmp.path() / "m.tar.zst";
    REQUIRE(write_tree_archive(file, *entries, Compression{Codec::zstd, 3, 1}));
    CHECK_FALSE(read_first_member(file, "manifest.json", 1 << 20));
    entries->insert(entries->begin(), manifest);
    REQUIRE(write_tree_archive(with, *entries, Compression{Codec::zstd, 3, 1}));
    auto m = read_first_member(with, "manifest.json", 1 << 20);
    REQUIRE(m);
    CHECK(*m == "{}");
    stdfs::create_directories(tmp.path() / "dest");
    CHECK_FALSE(extract_tree_archive(file, tmp.path() / "dest"));
}

// A build tree holds absolute symlinks (into the work dir it is restored at,
// or to the system): kept as they are, never followed while extracting.
TEST_CASE("tree archive: absolute symlinks are kept as written and nothing is written through them", "[tree_archive]") {
    sf::fs::TempDir tmp("sf-test-tree-archive");
    const stdfs::path src = tmp.path() / "src", outside = tmp.path() / "outside";
    stdfs::create_directories(src / "build");
    stdfs::create_directories(outside);
    stdfs::create_symlink("/usr/lib", src / "build/syslib");
    stdfs::create_symlink(outside, src / "build/out");
    auto entries = tree_with_dirs(src, "top");
    REQUIRE(entries);
    // A hostile member after the link: a file whose path goes through it.
    TarEntry through;
    through.name = "top/build/out/planted";
    through.content = "x";
    entries->push_back(through);
    const stdfs::path file = tmp.path() / "t.tar.zst";
    REQUIRE(write_tree_archive(file, *entries, Compression{Codec::zstd, 3, 1}));
    auto ok = extract_tree_archive(file, tmp.path() / "dest");
    CHECK_FALSE(ok);
    CHECK_FALSE(stdfs::exists(outside / "planted"));
    CHECK_FALSE(stdfs::exists(tmp.path() / "dest"));  // nothing half-written

    entries->pop_back();
    REQUIRE(write_tree_archive(file, *entries, Compression{Codec::zstd, 3, 1}));
    auto ok2 = extract_tree_archive(file, tmp.path() / "dest2");
    INFO((ok2 ? std::string() : ok2.error().str()));
    REQUIRE(ok2);
    CHECK(stdfs::read_symlink(tmp.path() / "dest2/top/build/syslib") == "/usr/lib");
    CHECK(stdfs::read_symlink(tmp.path() / "dest2/top/build/out") == outside);
}
