// `splitforge cmake-cache ...` through the real binary.
#include <catch2/catch.hpp>

#include "process/process.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf;

namespace {

process::Outcome splitforge(std::vector<std::string> args) {
    process::Command c;
    c.argv = {test::binary().string()};
    c.argv.insert(c.argv.end(), args.begin(), args.end());
    c.env = process::minimal_env();
    auto r = process::capture(c);
    REQUIRE(r);
    return *r;
}

}  // namespace

TEST_CASE("cmake-cache CLI: set, unset, get, dry-run") {
    fs::TempDir dir("sf-cache-cli");
    auto file = (dir.path() / "CMakeCache.txt").string();
    const std::string original = test::slurp(test::data_dir() / "script" / "CMakeCache.python311.txt");
    REQUIRE(fs::write_file_atomic(file, original));

    SECTION("--dry-run prints the diff and writes nothing") {
        auto r = splitforge({"cmake-cache", "set", file, "USE_MAGMA:BOOL=ON", "--dry-run"});
        CHECK(r.exit_code == 0);
        CHECK(r.out == "--- " + file + "\n+++ " + file + "\n@@ -234 +234 @@\n-USE_MAGMA:BOOL=OFF\n+USE_MAGMA:BOOL=ON\n");
        CHECK(r.err == file + ": dry run, nothing written\n");
        CHECK(test::slurp(file) == original);
    }
    SECTION("set writes; the type may be left out for an existing key") {
        auto r = splitforge({"cmake-cache", "set", file, "USE_MAGMA=ON"});
        CHECK(r.exit_code == 0);
        CHECK(test::slurp(file) == str::replace_all(original, "USE_MAGMA:BOOL=OFF", "USE_MAGMA:BOOL=ON"));
        auto g = splitforge({"cmake-cache", "get", file, "USE_MAGMA"});
        CHECK(g.out == "ON\n");
        auto again = splitforge({"cmake-cache", "set", file, "USE_MAGMA:BOOL=ON"});
        CHECK(again.out.empty());
        CHECK(again.err == file + ": no change\n");
    }
    SECTION("a new key needs a type") {
        auto r = splitforge({"cmake-cache", "set", file, "BRAND_NEW=1"});
        CHECK(r.exit_code == 2);
        CHECK(r.err == "splitforge: error: cmake-cache set: 'BRAND_NEW' is not in " + file +
                           " (give a type for a new entry, e.g. BRAND_NEW:STRING=1)\n");
        CHECK(test::slurp(file) == original);
    }
    SECTION("unset removes the entry with its help text") {
        auto r = splitforge({"cmake-cache", "unset", file, "TORCH_PYTHON_SITE"});
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("-//where torch goes\n-TORCH_PYTHON_SITE:PATH=") != std::string::npos);
        CHECK(test::slurp(file).find("TORCH_PYTHON_SITE") == std::string::npos);
    }
    SECTION("retarget-python with a missing interpreter fails cleanly") {
        auto r = splitforge({"cmake-cache", "retarget-python", file, "--python", "/nonexistent/python3"});
        CHECK(r.exit_code == 2);
        CHECK(r.err ==
              "splitforge: error: cmake-cache retarget-python: cannot run '/nonexistent/python3': no such file\n");
        CHECK(test::slurp(file) == original);
    }
    SECTION("a missing cache file") {
        auto r = splitforge({"cmake-cache", "get", (dir.path() / "nope.txt").string(), "X"});
        CHECK(r.exit_code == 2);
        CHECK(str::starts_with(r.err, "splitforge: error: " + (dir.path() / "nope.txt").string() +
                                          ": cannot read CMake cache"));
    }
}
