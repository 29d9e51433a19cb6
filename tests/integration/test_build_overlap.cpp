// `splitforge build` tests a finished output while the next one builds
// (engine/publish.hpp): tests/data/engine/test_overlap's first test passes
// only when it runs beside the second output's script, and its third output
// needs the first in its host env. Rows stay in plan order, a failed test
// still goes to broken/, and --keep-going still builds what does not need it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

namespace {

struct Run {
    int rc = -1;
    std::string err, out;
};

Run build(const stdfs::path& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {test::binary().string(), "build",
                                     (test::data_dir() / "engine/test_overlap").string(),
                                     "--output-folder", out.string(), "-q", "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    process::Command c{argv, {}, process::current_env(), {}, {}, {}};
    auto r = process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->err, r->out};
}

// Each output row as "name status test".
std::vector<std::string> rows(const Run& r) {
    std::vector<std::string> out;
    auto j = nlohmann::json::parse(r.out);
    for (const auto& o : j.at("outputs"))
        out.push_back(o.at("name").get<std::string>() + " " + o.at("status").get<std::string>() + " " +
                      o.at("test").get<std::string>());
    return out;
}

std::vector<std::string> packages(const stdfs::path& out) {
    std::vector<std::string> found;
    for (const auto& e : stdfs::recursive_directory_iterator(out))
        if (str::ends_with(e.path().string(), ".conda"))
            found.push_back(e.path().lexically_relative(out).parent_path().string() + "/" +
                            e.path().filename().string().substr(0, 7));
    std::sort(found.begin(), found.end());
    return found;
}

}  // namespace

TEST_CASE("build: a test runs beside the next output's build, results in plan order", "[engine]") {
    fs::TempDir tmp("sf-engine-overlap");
    auto r = build(tmp.path() / "out");
    INFO(r.err);
    REQUIRE(r.rc == 0);
    CHECK(rows(r) == std::vector<std::string>{"sf-ov-a built passed", "sf-ov-b built passed", "sf-ov-c built passed"});
    CHECK(packages(tmp.path() / "out") == std::vector<std::string>{"linux-64/sf-ov-a", "linux-64/sf-ov-b", "linux-64/sf-ov-c"});
}

TEST_CASE("build: an output that reaches the one being tested through a -c channel's package waits for it",
          "[engine]") {
    fs::TempDir tmp("sf-engine-overlap");
    // sf-ov-link (in a -c channel) depends on sf-ov-b, the output tested
    // while sf-ov-c would build: sf-ov-c's host env solves only once sf-ov-b
    // is in the output channel, so the build must see the chain and wait.
    const stdfs::path link = tmp.path() / "link";
    REQUIRE(fs::write_file_atomic(tmp.path() / "payload/share/sf-ov-link.txt", "link\n"));
    process::Command c{{test::binary().string(), "package", (tmp.path() / "payload").string(), "--name", "sf-ov-link",
                        "--version", "1.0", "--build", "0", "--depends", "sf-ov-b", "--output-folder",
                        (link / "linux-64").string()},
                       {}, process::current_env(), {}, {}, {}};
    auto made = process::capture(c);
    REQUIRE(made);
    INFO(made->err);
    REQUIRE(made->exit_code == 0);
    c.argv = {test::binary().string(), "index", link.string()};
    auto indexed = process::capture(c);
    REQUIRE(indexed);
    REQUIRE(indexed->exit_code == 0);
    auto r = build(tmp.path() / "out", {"-c", link.string(), "--variant", "sf_ov_c_host=sf-ov-link"});
    INFO(r.err);
    REQUIRE(r.rc == 0);
    CHECK(rows(r) == std::vector<std::string>{"sf-ov-a built passed", "sf-ov-b built passed", "sf-ov-c built passed"});
}

TEST_CASE("build: a failed test beside the next build: broken/, --keep-going, and the error", "[engine]") {
    fs::TempDir tmp("sf-engine-overlap");
    SECTION("--keep-going: the failed one in broken/, what does not need it built") {
        auto r = build(tmp.path() / "out", {"--variant", "sf_ov_fail=1", "--keep-going"});
        INFO(r.err);
        CHECK(r.rc == 1);
        CHECK(rows(r) == std::vector<std::string>{"sf-ov-a failed -", "sf-ov-b built passed", "sf-ov-c failed -"});
        CHECK(packages(tmp.path() / "out") == std::vector<std::string>{"broken/sf-ov-a", "linux-64/sf-ov-b"});
        CHECK(r.err.find("[1/3] sf-ov-a") != std::string::npos);
        CHECK(r.err.find("[3/3] sf-ov-c") != std::string::npos);
    }
    SECTION("without: the build stops at the failed test, and the output built beside it is not published") {
        process::Command c{{test::binary().string(), "build", (test::data_dir() / "engine/test_overlap").string(),
                            "--output-folder", (tmp.path() / "out").string(), "-q", "--variant", "sf_ov_fail=1"},
                           {}, process::current_env(), {}, {}, {}};
        auto r = process::capture(c);
        REQUIRE(r);
        INFO(r->err);
        CHECK(r->exit_code == 1);
        auto lines = str::split_lines(std::string(str::trim(r->err)));
        REQUIRE_FALSE(lines.empty());
        CHECK(str::starts_with(lines.back(), "splitforge: error: sf-ov-a-1.0.0-"));
        CHECK(lines.back().find(": test: failed (exit 1): test \"1\" = 0 (package moved to ") != std::string::npos);
        CHECK(packages(tmp.path() / "out") == std::vector<std::string>{"broken/sf-ov-a"});
    }
}
