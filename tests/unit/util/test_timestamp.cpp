// util/timestamp: SOURCE_DATE_EPOCH, else the newest mtime of the inputs.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "util/fs.hpp"
#include "util/timestamp.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

namespace {

// Sets SOURCE_DATE_EPOCH (nullopt: unsets it) for one test, then restores it.
class SourceDateEpoch {
public:
    explicit SourceDateEpoch(std::optional<std::string> value) {
        if (const char* v = std::getenv("SOURCE_DATE_EPOCH")) saved_ = v;
        if (value)
            ::setenv("SOURCE_DATE_EPOCH", value->c_str(), 1);
        else
            ::unsetenv("SOURCE_DATE_EPOCH");
    }
    ~SourceDateEpoch() {
        if (saved_)
            ::setenv("SOURCE_DATE_EPOCH", saved_->c_str(), 1);
        else
            ::unsetenv("SOURCE_DATE_EPOCH");
    }
    SourceDateEpoch(const SourceDateEpoch&) = delete;
    SourceDateEpoch& operator=(const SourceDateEpoch&) = delete;

private:
    std::optional<std::string> saved_;
};

// Sets the mtime of `p` itself (a symlink's own, not its target's).
void set_mtime(const stdfs::path& p, std::int64_t seconds) {
    struct timespec ts[2] = {{static_cast<time_t>(seconds), 0}, {static_cast<time_t>(seconds), 0}};
    REQUIRE(::utimensat(AT_FDCWD, p.c_str(), ts, AT_SYMLINK_NOFOLLOW) == 0);
}

void put(const stdfs::path& p, std::int64_t mtime) {
    stdfs::create_directories(p.parent_path());
    REQUIRE(fs::write_file_atomic(p, "x"));
    set_mtime(p, mtime);
}

}  // namespace

TEST_CASE("source_date_epoch reads a non-negative integer, nothing else") {
    SECTION("valid") {
        SourceDateEpoch sde("1600000000");
        CHECK(timestamp::source_date_epoch() == 1600000000);
    }
    SECTION("zero") {
        SourceDateEpoch sde("0");
        CHECK(timestamp::source_date_epoch() == 0);
    }
    SECTION("unset") {
        SourceDateEpoch sde(std::nullopt);
        CHECK(!timestamp::source_date_epoch());
    }
    SECTION("empty") {
        SourceDateEpoch sde("");
        CHECK(!timestamp::source_date_epoch());
    }
    SECTION("not a number") {
        SourceDateEpoch sde("not-a-number");
        CHECK(!timestamp::source_date_epoch());
    }
    SECTION("trailing garbage") {
        SourceDateEpoch sde("1600000000x");
        CHECK(!timestamp::source_date_epoch());
    }
    SECTION("negative") {
        SourceDateEpoch sde("-5");
        CHECK(!timestamp::source_date_epoch());
    }
    SECTION("out of range") {
        SourceDateEpoch sde("99999999999999999999999");
        CHECK(!timestamp::source_date_epoch());
    }
}

TEST_CASE("reproducible: SOURCE_DATE_EPOCH, else the newest mtime of the inputs") {
    fs::TempDir tmp("sf-test-timestamp");
    const stdfs::path dir = tmp.path() / "recipe";
    put(dir / "meta.yaml", 1500000000);
    put(dir / "sub" / "build.sh", 1500000100);
    set_mtime(dir / "sub", 1700000000);  // directories' own mtimes do not count
    set_mtime(dir, 1700000000);

    SECTION("a valid SOURCE_DATE_EPOCH wins over the files") {
        SourceDateEpoch sde("1234");
        CHECK(timestamp::reproducible({dir}) == 1234);
    }
    SECTION("unset: the newest file under a directory") {
        SourceDateEpoch sde(std::nullopt);
        CHECK(timestamp::reproducible({dir}) == 1500000100);
    }
    SECTION("empty reads as unset") {
        SourceDateEpoch sde("");
        CHECK(timestamp::reproducible({dir}) == 1500000100);
    }
    SECTION("invalid reads as unset, not as the clock") {
        for (const char* bad : {"not-a-number", "12abc", "-1", "99999999999999999999999"}) {
            SourceDateEpoch sde(std::string{bad});
            CHECK(timestamp::reproducible({dir}) == 1500000100);
        }
    }
    SECTION(".git is skipped") {
        SourceDateEpoch sde(std::nullopt);
        put(dir / ".git" / "index", 1800000000);
        CHECK(timestamp::reproducible({dir}) == 1500000100);
    }
    SECTION("a symlink counts with its own mtime") {
        SourceDateEpoch sde(std::nullopt);
        stdfs::create_symlink("meta.yaml", dir / "link");
        set_mtime(dir / "link", 1600000000);
        CHECK(timestamp::reproducible({dir}) == 1600000000);
        CHECK(timestamp::reproducible({dir / "meta.yaml", dir / "link"}) == 1600000000);
        CHECK(timestamp::reproducible({dir / "meta.yaml"}) == 1500000000);
    }
    SECTION("a link to the directory stands for the directory") {
        SourceDateEpoch sde(std::nullopt);
        stdfs::create_directory_symlink(dir, tmp.path() / "recipe-link");
        set_mtime(tmp.path() / "recipe-link", 1900000000);
        CHECK(timestamp::reproducible({tmp.path() / "recipe-link"}) == 1500000100);
    }
    SECTION("files, directories and missing paths together") {
        SourceDateEpoch sde(std::nullopt);
        put(tmp.path() / "other.txt", 1500000200);
        CHECK(timestamp::reproducible({dir, tmp.path() / "other.txt", tmp.path() / "missing"}) == 1500000200);
    }
    SECTION("nothing to go by: 0") {
        SourceDateEpoch sde(std::nullopt);
        stdfs::create_directories(tmp.path() / "empty");
        CHECK(timestamp::reproducible({}) == 0);
        CHECK(timestamp::reproducible({tmp.path() / "empty", tmp.path() / "missing"}) == 0);
    }
}
