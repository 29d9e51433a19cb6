// End-to-end: ../shared/build-real's 8 real conda-forge feedstocks built from
// their unmodified recipes, offline (sources from the shipped cache, tools
// from Debian), then compared with what conda-forge published (its
// compare.py: names, versions, build strings, depends with the compilers'
// run_exports, constrains, file lists, passing tests). Slow: its own binary
// test_build_real, labelled `slow`.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;
using namespace sf;

TEST_CASE("build-real: every case builds and matches what conda-forge published", "[build-real]") {
    const stdfs::path corpus = test::shared_dir() / "build-real";
    if (!stdfs::exists(corpus / "compare.py")) test::skip("../shared/build-real is not here");
    const process::Env env = process::current_env();
    if (!process::find_executable("python3", env.count("PATH") ? env.at("PATH") : ""))
        test::skip("python3 is not on PATH (compare.py needs it)");
    fs::TempDir tmp("sf-build-real");
    const stdfs::path cache = tmp.path() / "cache", out = tmp.path() / "out";
    // splitforge writes lock files into the cache: a copy of the shipped one.
    REQUIRE(fs::copy_tree(corpus / "sources", cache / "src"));
    process::Env run_env = env;
    run_env["SPLITFORGE_CACHE"] = cache.string();
    // fmt before spdlog: spdlog's host needs fmt from the output folder.
    for (const char* fs : {"fmt", "spdlog", "lz4-c", "yaml", "yaml-cpp", "gtest", "libdeflate", "benchmark"}) {
        const stdfs::path r = corpus / "recipes" / fs;
        process::Command c{{test::binary().string(), "build", (r / "recipe").string(), "-m",
                            (r / ".ci_support/linux_64_.yaml").string(), "--output-folder", out.string(), "-c",
                            out.string(), "--keep-going", "-q"},
                           {}, run_env, {}, {}, {}};
        auto res = process::capture(c);
        REQUIRE(res);
        INFO(fs << ": " << res->err);
        CHECK(res->exit_code == 0);
    }
    process::Command cmp{{"python3", (corpus / "compare.py").string(), out.string()}, {}, env, {}, {}, {}};
    auto res = process::capture(cmp);
    REQUIRE(res);
    INFO(res->out << res->err);
    CHECK(res->exit_code == 0);
    CHECK(res->out.find(" 0 failed") != std::string::npos);
}
