#include <catch2/catch.hpp>

#include <sys/stat.h>

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
