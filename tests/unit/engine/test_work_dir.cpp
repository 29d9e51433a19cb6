#include <catch2/catch.hpp>

#include <unistd.h>

#include <optional>

#include "engine/work_dir.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf;
using engine::WorkDir;
using engine::WorkKind;
namespace stdfs = std::filesystem;

TEST_CASE("work dir: the same path for each build of a recipe, a unique one beside a running build", "[engine]") {
    fs::TempDir tmp("sf-test-work");
    const stdfs::path area = tmp.path() / ".splitforge-work", recipe = tmp.path() / "recipe";
    variant::Selection sel;
    const std::string name = engine::work_dir_name("demo", recipe, sel);
    CHECK(str::starts_with(name, "demo-"));
    CHECK(name.size() == 5 + 10);
    CHECK(engine::work_dir_name("demo", recipe, sel) == name);
    auto other = sel;
    other.overrides.push_back({"python", "3.12"});
    CHECK(engine::work_dir_name("demo", recipe, other) != name);

    {
        auto a = WorkDir::claim(area, "demo", recipe, sel);
        REQUIRE(a);
        CHECK(a->kind() == WorkKind::stable);
        CHECK(a->path() == area / name);
        CHECK(stdfs::exists(area / (name + ".lock")));
        REQUIRE(fs::write_file_atomic(a->path() / "file", "x"));

        std::optional<WorkDir> b;
        {
            auto claimed = WorkDir::claim(area, "demo", recipe, sel);
            REQUIRE(claimed);
            b.emplace(std::move(*claimed));
        }
        CHECK(b->kind() == WorkKind::unique);
        CHECK(str::starts_with(b->path().filename().string(), "build-" + std::to_string(::getpid()) + "-"));
        const stdfs::path unique = b->path();
        b.reset();
        CHECK_FALSE(stdfs::exists(unique));
        CHECK(stdfs::exists(area / name / "file"));  // the holder's dir is untouched
    }
    CHECK(stdfs::is_empty(area));  // dirs and lock files gone

    SECTION("--keep-build keeps the dir; the next build empties it") {
        {
            auto a = WorkDir::claim(area, "demo", recipe, sel);
            REQUIRE(a);
            REQUIRE(fs::write_file_atomic(a->path() / "file", "x"));
            CHECK(a->keep() == area / name);
        }
        CHECK(stdfs::exists(area / name / "file"));
        CHECK_FALSE(stdfs::exists(area / (name + ".lock")));
        auto again = WorkDir::claim(area, "demo", recipe, sel);
        REQUIRE(again);
        CHECK(again->kind() == WorkKind::stable);
        CHECK(stdfs::is_empty(again->path()));
    }
    SECTION("sweep: a killed build's dir (its lock file unheld) goes, a kept one stays") {
        stdfs::create_directories(area / "killed-0123456789");
        REQUIRE(fs::write_file_atomic(area / "killed-0123456789.lock", ""));
        stdfs::create_directories(area / "kept-0123456789");
        engine::sweep_work_area(area);
        CHECK_FALSE(stdfs::exists(area / "killed-0123456789"));
        CHECK_FALSE(stdfs::exists(area / "killed-0123456789.lock"));
        CHECK(stdfs::exists(area / "kept-0123456789"));
    }
}
