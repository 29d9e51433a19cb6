// Hostile recipe.yaml builds and the files they leave (session 12's red
// team): package_contents glob bombs, staged files restored through a
// symlink in the inheriting output's prefix, hostile versions in a host
// prefix's conda-meta for pin_compatible, a staging label too long for a
// directory name, and concurrent builds filling one source cache entry.
// Each ends in one line naming the file or the output and step, a non-zero
// exit, and nothing written outside.
#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

#include "craft.hpp"
#include "process/process.hpp"
#include "script/capture.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf::test::craft;

namespace {

struct Run {
    int rc = -1;
    std::string err, out;
};

Run run(std::vector<std::string> args) {
    args.insert(args.begin(), sf::test::binary().string());
    sf::process::Command c{args, {}, sf::process::current_env(), {}, {}, {}};
    auto r = sf::process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->err, r->out};
}

std::string last_line(const std::string& s) {
    auto lines = sf::str::split_lines(s);
    while (!lines.empty() && sf::str::trim(lines.back()).empty()) lines.pop_back();
    return lines.empty() ? "" : lines.back();
}

stdfs::path recipe(const std::string& name) { return sf::test::data_dir() / "security" / name; }

// Every .conda below `out`, as "<dir>/<file name>".
std::vector<std::string> packages(const stdfs::path& out) {
    std::vector<std::string> found;
    for (const auto& e : stdfs::recursive_directory_iterator(out))
        if (sf::str::ends_with(e.path().string(), ".conda") &&
            e.path().string().find(".splitforge-work") == std::string::npos)
            found.push_back(e.path().parent_path().filename().string() + "/" + e.path().filename().string());
    return found;
}

}  // namespace

TEST_CASE("security: a package_contents brace bomb fails its test with one line", "[security][build]") {
    sf::fs::TempDir tmp("sf-sec-v1");
    const stdfs::path out = tmp.path() / "out";
    auto r = run({"build", recipe("contents_bomb").string(), "--output-folder", out.string(), "-q"});
    INFO(r.err);
    CHECK(r.rc == 1);
    const std::string line = last_line(r.err);
    CHECK(sf::str::starts_with(line, "splitforge: error: sf-sec-contents-bomb-0.1.0-"));
    CHECK(line.find(": test: package_contents: glob 'share/{a,b}{a,b}") != std::string::npos);
    CHECK(line.find("expands to more than 4096 patterns") != std::string::npos);
    auto pkgs = packages(out);
    REQUIRE(pkgs.size() == 1);
    CHECK(sf::str::starts_with(pkgs[0], "broken/sf-sec-contents-bomb-0.1.0-"));

    SECTION("globs at the bound still match") {
        auto ok = run({"build", recipe("contents_ok").string(), "--output-folder", (tmp.path() / "ok").string(), "-q"});
        INFO(ok.err);
        CHECK(ok.rc == 0);
    }
}

// The staged files an output inherits are copied into its fresh host prefix,
// which holds what its envs installed; a symlinked directory there must not
// carry the copy (or the removal before it) out of the prefix.
TEST_CASE("security: staged files are never restored through a symlink in the prefix", "[security][build]") {
    sf::fs::TempDir tmp("sf-sec-v1");
    const stdfs::path staged = tmp.path() / "staged", prefix = tmp.path() / "prefix", outside = tmp.path() / "outside";
    stdfs::create_directories(staged / "lib");
    stdfs::create_directories(staged / "share/d");
    stdfs::create_directories(prefix);
    stdfs::create_directories(outside);
    std::ofstream(staged / "lib/libx.so") << "staged";
    std::ofstream(staged / "share/d/f") << "staged";
    stdfs::create_symlink("libx.so", staged / "lib/libx.so.1");
    std::ofstream(outside / "libx.so") << "precious";
    const auto before = scan(outside);

    SECTION("an absolute symlinked directory") {
        stdfs::create_directory_symlink(outside, prefix / "lib");
        auto r = sf::script::copy_files(staged, {"lib/libx.so", "lib/libx.so.1"}, prefix);
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == (prefix / "lib").string());
        CHECK(r.error().message.find("is a symlink; refusing to write through it") != std::string::npos);
    }
    SECTION("a relative one leading up") {
        stdfs::create_directory_symlink("../outside", prefix / "lib");
        auto r = sf::script::copy_files(staged, {"lib/libx.so"}, prefix);
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("cannot copy lib/libx.so into " + prefix.string()) != std::string::npos);
    }
    SECTION("a symlinked directory staying inside the prefix is followed (a venv's lib64 -> lib)") {
        stdfs::create_directories(staged / "lib64");
        std::ofstream(staged / "lib64/liby.so") << "staged";
        stdfs::create_directories(prefix / "lib");
        stdfs::create_directory_symlink("lib", prefix / "lib64");
        stdfs::create_directory_symlink("lib64", prefix / "l2");
        REQUIRE(sf::script::copy_files(staged, {"lib64/liby.so"}, prefix));
        CHECK(sf::test::slurp(prefix / "lib/liby.so") == "staged");
        stdfs::create_directories(staged / "l2");
        std::ofstream(staged / "l2/libz.so") << "staged";
        REQUIRE(sf::script::copy_files(staged, {"l2/libz.so"}, prefix));
        CHECK(sf::test::slurp(prefix / "lib/libz.so") == "staged");
    }
    SECTION("a symlink loop is refused") {
        stdfs::create_directory_symlink("l2", prefix / "lib");
        stdfs::create_directory_symlink("lib", prefix / "l2");
        auto r = sf::script::copy_files(staged, {"lib/libx.so"}, prefix);
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("is a symlink; refusing to write through it") != std::string::npos);
    }
    SECTION("a directory where a staged file goes") {
        stdfs::create_directories(prefix / "share/d/f/sub");
        auto r = sf::script::copy_files(staged, {"share/d/f"}, prefix);
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == (prefix / "share/d/f").string());
        CHECK(r.error().message.find("is a directory") != std::string::npos);
        CHECK(stdfs::is_directory(prefix / "share/d/f/sub"));
    }
    SECTION("a symlink at a file's own name is replaced, never followed") {
        stdfs::create_directories(prefix / "lib");
        stdfs::create_symlink(outside / "libx.so", prefix / "lib/libx.so");
        REQUIRE(sf::script::copy_files(staged, {"lib/libx.so", "lib/libx.so.1", "share/d/f"}, prefix));
        CHECK(sf::test::slurp(prefix / "lib/libx.so") == "staged");
        CHECK_FALSE(stdfs::is_symlink(prefix / "lib/libx.so"));
        CHECK(stdfs::read_symlink(prefix / "lib/libx.so.1") == "libx.so");
        CHECK(sf::test::slurp(prefix / "share/d/f") == "staged");
    }
    CHECK(scan(outside) == before);
    for (const auto& e : stdfs::recursive_directory_iterator(prefix))
        CHECK(e.path().filename().string().find(".sftmp-") == std::string::npos);
}

// A host prefix's records come from the provider (conda, micromamba) or the
// build script; pin_compatible turns their version into a match spec.
TEST_CASE("security: pin_compatible refuses a record's version that is match-spec syntax", "[security][build]") {
    sf::fs::TempDir tmp("sf-sec-v1");
    const stdfs::path out = tmp.path() / "out";
    auto r = run({"build", recipe("pin_record_hostile").string(), "--output-folder", out.string(), "-q", "--no-test"});
    INFO(r.err);
    CHECK(r.rc != 0);  // an output's step: exit 1 as a failed build, whatever its kind
    const std::string line = last_line(r.err);
    CHECK(line.find("splitforge: error: ") == 0);
    CHECK(line.find(": run requirements: ") != std::string::npos);
    CHECK(line.find("conda-meta/sf-evil-1.0-0.json") != std::string::npos);
    CHECK(line.find("pin_compatible('sf-evil'): invalid version '1.0,<0|*'") != std::string::npos);
    CHECK(packages(out).empty());

    auto s = run({"build", recipe("pin_record_spoofed").string(), "--output-folder", out.string(), "-q", "--no-test",
                  "--json"});
    INFO(s.err);
    REQUIRE(s.rc == 0);
    const std::string repodata = sf::test::slurp(out / "linux-64/repodata.json");
    CHECK(repodata.find("\"sf-evil >=1.0,<2.0a0\"") != std::string::npos);
}

// The staging label comes from variant values; the staging name (which may
// hold "../") names no path at all.
TEST_CASE("security: a long variant value and a staging name with ../ build in the work dir", "[security][build]") {
    sf::fs::TempDir tmp("sf-sec-v1");
    const stdfs::path out = tmp.path() / "out";
    auto r = run({"build", recipe("long_label").string(), "-m", (recipe("long_label") / "variants.yaml").string(),
                  "--output-folder", out.string(), "-q", "--keep-build"});
    INFO(r.err);
    CHECK(r.rc == 0);
    auto pkgs = packages(out);
    REQUIRE(pkgs.size() == 1);
    CHECK(sf::str::starts_with(pkgs[0], "linux-64/sf-sec-long-label-0.1.0-"));
    for (const auto& e : stdfs::recursive_directory_iterator(tmp.path())) {
        const std::string name = e.path().filename().string();
        if (sf::str::starts_with(name, "staging-")) CHECK(name.size() <= 8 + 64);  // cut at 64, never longer
        CHECK(name != "evil");
    }
}

// The source cache entry <cache>/src/<sha256>/<file> filled by four builds
// at once, over a temp a killed download left (its writer gone) and one of a
// writer still running: each build gets the verified file, the dead temp is
// swept, the live one kept, and nothing else is left in the slot.
TEST_CASE("security: concurrent builds fill one source cache entry, a killed download's temp is swept",
          "[security][source]") {
    sf::fs::TempDir tmp("sf-sec-v1");
    const stdfs::path cache = tmp.path() / "cache";
    const std::string sha = "8ee89a666a6d789cc7e9040997a8e7999863832145768f06a74c4c4655673986";
    const stdfs::path slot = cache / "src" / sha;
    stdfs::create_directories(slot);
    long dead = 999999;
    while (::kill(static_cast<pid_t>(dead), 0) == 0 || errno != ESRCH) --dead;
    const std::string stale = ".payload.txt.sftmp-" + std::to_string(dead) + "-0123456789ab";
    const std::string live = ".payload.txt.sftmp-" + std::to_string(::getpid()) + "-0123456789ab";
    std::ofstream(slot / stale) << "half a download";
    std::ofstream(slot / live) << "another writer's";
    std::vector<pid_t> pids;
    std::vector<stdfs::path> logs;
    for (int i = 0; i < 4; ++i) {
        logs.push_back(tmp.path() / ("log" + std::to_string(i)));
        pids.push_back(spawn({sf::test::binary().string(), "build", recipe("cache_race").string(), "--output-folder",
                              (tmp.path() / ("out" + std::to_string(i))).string(), "--source-cache", cache.string(), "-q"},
                             logs.back()));
    }
    CHECK(wait_all(pids, logs).empty());
    std::vector<std::string> in_slot;
    for (const auto& e : stdfs::directory_iterator(slot)) in_slot.push_back(e.path().filename().string());
    std::sort(in_slot.begin(), in_slot.end());
    CHECK(in_slot == std::vector<std::string>{live, "payload.txt"});
    CHECK(sf::test::slurp(slot / "payload.txt") == sf::test::slurp(recipe("cache_race") / "payload.txt"));
    for (int i = 0; i < 4; ++i) CHECK(packages(tmp.path() / ("out" + std::to_string(i))).size() == 1);
}

TEST_CASE("security: staged symlinks leading out of the prefix are restored as links and refused by packaging",
          "[security][build]") {
    sf::fs::TempDir tmp("sf-sec-v1");
    const stdfs::path out = tmp.path() / "out", outside = tmp.path() / "outside";
    stdfs::create_directories(outside);
    std::ofstream(outside / "victim") << "precious";
    const auto before = scan(outside);
    auto r = run({"build", recipe("staging_symlinks").string(), "--variant", "sf_outside=" + outside.string(),
                  "--output-folder", out.string(), "-q"});
    INFO(r.err);
    CHECK(r.rc != 0);
    const std::string line = last_line(r.err);
    CHECK(line.find("lib/abs: sf-sec-stsym-0.1.0-") != std::string::npos);
    CHECK(line.find(": package: post-processing: absolute symlink to '" + outside.string() +
                    "' points outside the prefix") != std::string::npos);
    CHECK(packages(out).empty());
    CHECK(scan(outside) == before);
}
