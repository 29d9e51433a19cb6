// The package cache and the archive reader under attack: a decompression
// bomb, tampered or planted cache entries, leftovers of killed installs.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "archive/read.hpp"
#include "archive/write.hpp"
#include "craft.hpp"
#include "env/install.hpp"
#include "testutil.hpp"

using namespace sf::test::craft;
using sf::env::install;
using sf::env::InstallOptions;

namespace {

InstallOptions opts(const stdfs::path& channel, const stdfs::path& pkgs) {
    InstallOptions o;
    if (!channel.empty()) o.channels = {channel};
    o.pkgs_dir = pkgs;
    o.platform = *sf::types::Platform::parse("linux-64");
    return o;
}

// bomb-1.0-0.conda: one member of `size` zero bytes (a sparse source file,
// compressed by zstd to a few KiB).
stdfs::path write_bomb(const stdfs::path& dir, std::uint64_t size) {
    namespace ar = sf::archive;
    stdfs::create_directories(dir);
    stdfs::path zeros = dir / "zeros.bin";
    {
        int fd = ::open(zeros.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        REQUIRE(fd >= 0);
        REQUIRE(::ftruncate(fd, static_cast<off_t>(size)) == 0);
        ::close(fd);
    }
    Pkg p;
    p.name = "bomb";
    p.members = {{"share/zeros", 'f'}};
    p.edit_paths = [&](json& j) { j["paths"][0]["size_in_bytes"] = size; j["paths"][0].erase("sha256"); };
    stdfs::path file = dir / "bomb-1.0-0.conda";
    auto out = ar::OutputFile::create(file);
    REQUIRE(out);
    ar::ZipWriter zip(**out, 0);
    REQUIRE(zip.add("metadata.json", R"({"conda_pkg_format_version": 2})"));
    ar::Compression c{ar::Codec::zstd, 1, 1};
    auto add_tar = [&](const std::string& name, const std::vector<ar::TarEntry>& entries) {
        REQUIRE(zip.add_streamed(name, ar::compress_bound(ar::tar_size_bound(entries), c), [&](ar::ByteSink& sink) -> sf::Result<void> {
            auto w = ar::write_tar(sink, entries, {}, c);
            if (!w) return sf::Unexpected<sf::Error>{w.error()};
            return {};
        }));
    };
    ar::TarEntry idx{"info/index.json", ar::EntryKind::file, {}, index_json(p).dump()};
    ar::TarEntry paths{"info/paths.json", ar::EntryKind::file, {}, paths_json(p).dump()};
    add_tar("info-bomb-1.0-0.tar.zst", {idx, paths});
    add_tar("pkg-bomb-1.0-0.tar.zst", {ar::TarEntry{"share/zeros", ar::EntryKind::file, zeros}});
    REQUIRE(zip.finish());
    REQUIRE((*out)->commit());
    stdfs::remove(zeros);
    return file;
}

}  // namespace

TEST_CASE("security: a 1 GiB zero bomb is refused before anything is written", "[security]") {
    sf::fs::TempDir tmp("sf-sec-bomb");
    auto file = write_bomb(tmp.path() / "in", std::uint64_t{1} << 30);
    INFO(stdfs::file_size(file));
    CHECK(stdfs::file_size(file) < (std::uint64_t{1} << 20));
    auto before = scan(tmp.path(), {"prefix", "pkgs"});
    auto r = install(tmp.path() / "prefix", {file.string()}, opts({}, tmp.path() / "pkgs"));
    REQUIRE_FALSE(r);
    INFO(r.error().str());
    CHECK(r.error().str().find("would expand to more than 256 MiB (limit: 100 times the archive size, at least 256 MiB)") !=
          std::string::npos);
    CHECK(r.error().str().find('\n') == std::string::npos);
    CHECK(scan(tmp.path(), {"prefix", "pkgs"}) == before);
    CHECK_FALSE(stdfs::exists(tmp.path() / "prefix"));
    // Nothing left in the cache either.
    std::error_code ec;
    CHECK(stdfs::is_empty(tmp.path() / "pkgs", ec));
}

TEST_CASE("security: the extraction limit scales with the archive", "[security]") {
    using sf::archive::extraction_limit;
    CHECK(extraction_limit(0) == std::uint64_t{256} << 20);
    CHECK(extraction_limit(std::uint64_t{10} << 20) == std::uint64_t{1000} << 20);
    CHECK(extraction_limit(~std::uint64_t{0}) == ~std::uint64_t{0});
}

TEST_CASE("security: a tampered cache entry is re-extracted, not trusted", "[security]") {
    sf::fs::TempDir tmp("sf-sec-cache");
    stdfs::path ch = tmp.path() / "channel", pkgs = tmp.path() / "pkgs";
    write_channel(ch, {pkg_with("good", {{"share/good.txt", 'f', "good\n"}})});
    REQUIRE(install(tmp.path() / "p1", {"good"}, opts(ch, pkgs)));
    // Edit the cached copy (as an edit through a hardlink in a prefix would).
    stdfs::path entry;
    for (const auto& e : stdfs::directory_iterator(pkgs))
        if (stdfs::exists(e.path() / "share/good.txt")) entry = e.path();
    REQUIRE_FALSE(entry.empty());
    stdfs::remove(entry / "share/good.txt");
    std::ofstream(entry / "share/good.txt") << "evil\n";
    REQUIRE(install(tmp.path() / "p2", {"good"}, opts(ch, pkgs)));
    CHECK(sf::test::slurp(tmp.path() / "p2/share/good.txt") == "good\n");
}

TEST_CASE("security: a cache entry that is a symlink elsewhere is replaced", "[security]") {
    sf::fs::TempDir tmp("sf-sec-cache2");
    stdfs::path ch = tmp.path() / "channel", pkgs = tmp.path() / "pkgs", elsewhere = tmp.path() / "elsewhere";
    write_channel(ch, {pkg_with("good", {{"share/good.txt", 'f', "good\n"}})});
    auto d = sf::hash::file_digests(ch / "linux-64/good-1.0-0.tar.bz2");
    REQUIRE(d);
    // A planted tree that looks like the package but ships something else.
    stdfs::create_directories(elsewhere / "info");
    stdfs::create_directories(elsewhere / "share");
    std::ofstream(elsewhere / "info/index.json") << index_json(pkg_with("good", {})).dump();
    std::ofstream(elsewhere / "share/good.txt") << "evil\n";
    std::ofstream(elsewhere / "info/paths.json")
        << json({{"paths", {{{"_path", "share/good.txt"}, {"path_type", "hardlink"}}}}, {"paths_version", 1}}).dump();
    stdfs::create_directories(pkgs);
    stdfs::create_directory_symlink(elsewhere, pkgs / d->sha256);
    auto before = scan(elsewhere);
    REQUIRE(install(tmp.path() / "p", {"good"}, opts(ch, pkgs)));
    CHECK(sf::test::slurp(tmp.path() / "p/share/good.txt") == "good\n");
    CHECK(scan(elsewhere) == before);
}

TEST_CASE("security: staging dirs of dead installs are swept, live ones kept", "[security]") {
    sf::fs::TempDir tmp("sf-sec-sweep");
    stdfs::path ch = tmp.path() / "channel", pkgs = tmp.path() / "pkgs";
    write_channel(ch, {pkg_with("good", {{"share/good.txt", 'f', "good\n"}})});
    std::string sha(64, 'a');
    // pid 2^22+1 is above Linux's pid_max limit: surely dead.
    stdfs::path dead = pkgs / (".staging-" + sha + "-4194305-deadbeef");
    stdfs::path dead_extract = pkgs / ("..staging-" + sha + "-4194305-deadbeef.extract-12345678");
    stdfs::path alive = pkgs / (".staging-" + sha + "-" + std::to_string(::getpid()) + "-cafecafe");
    for (const auto& d : {dead, dead_extract, alive}) stdfs::create_directories(d / "info");
    REQUIRE(install(tmp.path() / "p", {"good"}, opts(ch, pkgs)));
    CHECK_FALSE(stdfs::exists(dead));
    CHECK_FALSE(stdfs::exists(dead_extract));
    CHECK(stdfs::exists(alive));
}

TEST_CASE("security: a user's symlink to an outside file is replaced, never written through", "[security]") {
    sf::fs::TempDir tmp("sf-sec-replace");
    stdfs::path ch = tmp.path() / "channel", prefix = tmp.path() / "prefix";
    std::ofstream(tmp.path() / "victim.txt") << "precious\n";
    write_channel(ch, {pkg_with("good", {{"share/good.txt", 'f', "good\n"}})});
    stdfs::create_directories(prefix / "share");
    stdfs::create_symlink(tmp.path() / "victim.txt", prefix / "share/good.txt");
    REQUIRE(install(prefix, {"good"}, opts(ch, tmp.path() / "pkgs")));
    CHECK(sf::test::slurp(tmp.path() / "victim.txt") == "precious\n");
    CHECK_FALSE(stdfs::is_symlink(prefix / "share/good.txt"));
    CHECK(sf::test::slurp(prefix / "share/good.txt") == "good\n");
}

TEST_CASE("security: links inside the prefix still work (lib64 -> lib)", "[security]") {
    sf::fs::TempDir tmp("sf-sec-lib64");
    stdfs::path ch = tmp.path() / "channel", prefix = tmp.path() / "prefix";
    write_channel(ch, {pkg_with("base", {{"lib", 'd', "", "", 0755}, {"lib64", 'l', "", "lib", 0777}}),
                       pkg_with("user", {{"lib64/libx.so", 'f', "elf\n"}, {"share/x/link", 'l', "", "../../lib64/libx.so", 0777}},
                                {"base"})});
    REQUIRE(install(prefix, {"user"}, opts(ch, tmp.path() / "pkgs")));
    CHECK(sf::test::slurp(prefix / "lib/libx.so") == "elf\n");
    CHECK(sf::test::slurp(prefix / "share/x/link") == "elf\n");
}
