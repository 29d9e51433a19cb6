#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <string>
#include <unordered_set>

#include "archive/extract.hpp"
#include "util/fs.hpp"

using namespace sf::archive;
namespace stdfs = std::filesystem;

namespace {

size_t entries_in(const stdfs::path& d) {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : stdfs::directory_iterator(d)) ++n;
    return n;
}

}  // namespace

// A member costs a block against the budget whatever its size: empty members
// cannot multiply without limit (a million in a 2 MB .tar.bz2 took 45 s to
// write before the count cap refused it). The member over the budget is
// refused before it is created.
TEST_CASE("extract: each member costs a block against the budget, checked before it is written", "[extract]") {
    sf::fs::TempDir tmp("sf-test-extract");
    const std::uint64_t budget = 100 * kMemberCost;
    TreeWriter tree(tmp.path(), {budget, "package", OwnerAccess::as_stored});
    sf::Result<void> r;
    size_t added = 0;
    for (; added < 1000; ++added) {
        Entry e;
        e.path = "d" + std::to_string(added);
        e.type = EntryType::directory;
        e.mode = 0755;
        r = tree.add(nullptr, e);  // a directory reads no data
        if (!r) break;
    }
    REQUIRE_FALSE(r);
    CHECK(added < 100);
    CHECK(entries_in(tmp.path()) == added);
    struct stat st{};
    CHECK(::lstat((tmp.path() / ("d" + std::to_string(added))).c_str(), &st) != 0);
    CHECK(r.error().message == "would expand to more than 0 MiB with " + std::to_string(added + 1) +
                                   " members (each counts 4096 bytes at least) (limit: 100 times the archive size, "
                                   "at least 256 MiB); refusing to extract");
}

// Parents are checked once per directory, not once per member and level
// (2000 files 1000 levels deep took minutes), and a directory made on the way
// costs a block as a member does.
TEST_CASE("make_member_parents: each directory is checked or made once, and counted", "[extract]") {
    sf::fs::TempDir tmp("sf-test-extract");
    std::unordered_set<std::string> known;
    auto a = make_member_parents(tmp.path(), "a/b/c/f1", &known);
    REQUIRE(a);
    CHECK(*a == 3);
    auto b = make_member_parents(tmp.path(), "a/b/c/f2", &known);
    REQUIRE(b);
    CHECK(*b == 0);
    auto c = make_member_parents(tmp.path(), "a/b/d/e/f3", &known);
    REQUIRE(c);
    CHECK(*c == 2);
    CHECK(known == std::unordered_set<std::string>{"a", "a/b", "a/b/c", "a/b/d", "a/b/d/e"});
    // Without the memo, a symlink on the way is still refused.
    stdfs::create_directory_symlink(tmp.path() / "a", tmp.path() / "s");
    auto s = make_member_parents(tmp.path(), "s/x/f", nullptr);
    REQUIRE_FALSE(s);
    CHECK(s.error().message == "member 's/x/f' would be written through a symlink");

    const std::uint64_t budget = 100 * kMemberCost;
    TreeWriter tree(tmp.path() / "deep", {budget, "package", OwnerAccess::as_stored});
    stdfs::create_directory(tmp.path() / "deep");
    Entry e;
    e.path = "l0";
    for (int i = 1; i < 200; ++i) e.path += "/l" + std::to_string(i);
    e.path += "/file";
    auto r = tree.add(nullptr, e);  // an empty file 200 levels down: 199 directories over the budget
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("refusing to extract") != std::string::npos);
}
