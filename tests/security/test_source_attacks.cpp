// Hostile source archives, crafted at test time: source extraction applies
// the same checks and limits as package extraction (archive::TreeWriter).
// Each is refused with one line naming the archive, and nothing is written
// outside the work dir, nor left in it.
#include <catch2/catch.hpp>

#include "craft.hpp"
#include "source/source.hpp"
#include "testutil.hpp"

using namespace sf::test::craft;

namespace {

struct Area {
    sf::fs::TempDir tmp{"sf-sec-source"};
    stdfs::path work = tmp.path() / "work", recipe = tmp.path() / "recipe", outside = tmp.path() / "outside";
    Area() {
        stdfs::create_directories(recipe);
        stdfs::create_directories(outside);
    }
    sf::source::SourceContext ctx() const {
        sf::source::SourceContext c;
        c.work_dir = work;
        c.recipe_dir = recipe;
        c.cache_dir = tmp.path() / "cache";
        c.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/nonexistent-home"}};
        return c;
    }
    sf::Result<sf::source::FetchResult> fetch(const stdfs::path& archive) const {
        sf::types::Source s;
        s.url = archive.string();
        return sf::source::fetch_source(s, ctx());
    }
};

std::size_t count_entries(const stdfs::path& dir) {
    std::size_t n = 0;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(dir, ec); !ec && it != stdfs::recursive_directory_iterator();
         it.increment(ec))
        ++n;
    return n;
}

struct Hostile {
    std::string name;
    std::vector<Member> members;
    std::string message;  // the error, after "<archive>: "
};

}  // namespace

TEST_CASE("security: hostile source archives are refused with one line and write nothing", "[security][source]") {
    Area a;
    const std::string abs = (a.outside / "abs.txt").string();
    const std::vector<Hostile> cases = {
        {"path escape", {{"pkg-1.0/ok.txt", 'f', "ok\n"}, {"pkg-1.0/../../outside/escape.txt", 'f', "evil\n"}},
         "unsafe member: member path 'pkg-1.0/../../outside/escape.txt' contains '..'"},
        {"absolute path", {{"pkg-1.0/ok.txt", 'f', "ok\n"}, {abs, 'f', "evil\n"}},
         "unsafe member: absolute member path '" + abs + "'"},
        {"symlink out", {{"pkg-1.0/out", 'l', "", "../../outside"}, {"pkg-1.0/out/f.txt", 'f', "evil\n"}},
         "unsafe member: symlink 'pkg-1.0/out' -> '../../outside' points outside the source tree"},
        {"symlink then write through it",
         {{"pkg-1.0/sub/keep", 'f', "k\n"}, {"pkg-1.0/d", 'l', "", "sub"}, {"pkg-1.0/d/f.txt", 'f', "evil\n"}},
         "member 'pkg-1.0/d/f.txt' would be written through a symlink"},
        {"symlink then a file of its name",
         {{"pkg-1.0/f", 'l', "", "g"}, {"pkg-1.0/f", 'f', "evil\n"}},
         "unsafe member: 'pkg-1.0/f' appears twice in the archive"},
        {"duplicate member", {{"pkg-1.0/a.txt", 'f', "one\n"}, {"pkg-1.0/a.txt", 'f', "two\n"}},
         "unsafe member: 'pkg-1.0/a.txt' appears twice in the archive"},
        {"hardlink out", {{"pkg-1.0/h", 'h', "", "../outside/abs.txt"}},
         "unsafe member: hardlink 'pkg-1.0/h': member path '../outside/abs.txt' contains '..'"},
        {"character device", {{"pkg-1.0/null", 'c'}},
         "unsafe member: 'pkg-1.0/null' is not a file, directory or symlink"},
        {"zero bomb beyond the cap", {{"pkg-1.0/zeros", 'f', "", "", 0644, true, std::uint64_t{300} << 20}},
         "would expand to more than 256 MiB (limit: 100 times the archive size, at least 256 MiB); refusing to "
         "extract"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            stdfs::path file = a.tmp.path() / "src.tar.zst";
            write_tarball(file, c.members, Filter::zstd);
            if (c.name == "zero bomb beyond the cap") CHECK(stdfs::file_size(file) < (std::uint64_t{1} << 20));
            auto r = a.fetch(file);
            REQUIRE_FALSE(r);
            INFO(r.error().str());
            CHECK(r.error().loc.file == file.string());
            CHECK(r.error().message == c.message);
            CHECK(r.error().str().find('\n') == std::string::npos);
            CHECK(count_entries(a.work) == 0);
            CHECK(count_entries(a.outside) == 0);
        }
    }
}

TEST_CASE("security: benign source archive oddities still extract", "[security][source]") {
    Area a;
    stdfs::path file = a.tmp.path() / "src.tar.gz";
    // A "./" root entry, a directory listed twice, a hard link to an earlier
    // file, a symlink inside, a read-only file: the top directory is stripped.
    write_tarball(file,
                  {{"./", 'd', "", "", 0755},
                   {"./pkg-1.0", 'd', "", "", 0755},
                   {"./pkg-1.0/a.txt", 'f', "a\n", "", 0444},
                   {"./pkg-1.0", 'd', "", "", 0755},
                   {"./pkg-1.0/b.txt", 'h', "", "pkg-1.0/a.txt"},
                   {"./pkg-1.0/c.txt", 'l', "", "a.txt"}},
                  Filter::gzip);
    auto r = a.fetch(file);
    INFO((r ? std::string() : r.error().str()));
    REQUIRE(r);
    CHECK(sf::test::slurp(a.work / "a.txt") == "a\n");
    CHECK(sf::test::slurp(a.work / "b.txt") == "a\n");
    CHECK(stdfs::read_symlink(a.work / "c.txt") == "a.txt");
    // The owner may write (patches apply) even where the archive said 0444.
    CHECK((stdfs::status(a.work / "a.txt").permissions() & stdfs::perms::owner_write) != stdfs::perms::none);
}
