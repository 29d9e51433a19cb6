// A recipe conda_build_config.yaml of many keys (issue 30): rerender finds
// each key through an index and leaves the keys no recipe file names before
// the render, so the .ci_support files are those of the one key the recipe
// uses. Not timed: bench/rerender/keys_scaling.sh measures the speed.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "process/process.hpp"
#include "testutil.hpp"

namespace stdfs = std::filesystem;

namespace {

int rerender(const stdfs::path& feedstock, const stdfs::path& pinning, const stdfs::path& out, std::string& err) {
    std::vector<std::string> args{sf::test::binary().string(), "rerender", feedstock.string(), "-e",
                                  pinning.string(), "--variants-dir", out.string()};
    sf::process::Command c{args, feedstock.parent_path(), sf::process::current_env(), {}, {}, {}};
    auto r = sf::process::capture(c);
    REQUIRE(r);
    err = r->err;
    return r->exit_code;
}

// A feedstock whose recipe uses key_7, with `config` as its recipe config.
stdfs::path feedstock(const stdfs::path& dir, const std::string& config) {
    stdfs::create_directories(dir / "recipe");
    std::ofstream(dir / "conda-forge.yml") << "conda_build:\n  pkg_format: '2'\n";
    std::ofstream(dir / "recipe/meta.yaml") << "package:\n  name: keys\n  version: 1.0.0\nbuild:\n  number: 0\n"
                                               "requirements:\n  host:\n    - key_7 {{ key_7 }}\n    - python\n";
    std::ofstream(dir / "recipe/conda_build_config.yaml") << config;
    return dir;
}

std::map<std::string, std::string> files(const stdfs::path& dir) {
    std::map<std::string, std::string> out;
    for (const auto& e : stdfs::directory_iterator(dir)) out[e.path().filename().string()] = sf::test::slurp(e.path());
    return out;
}

}  // namespace

TEST_CASE("security: a recipe config of 20000 keys rerenders as its one used key does", "[security]") {
    sf::fs::TempDir tmp("sf-sec-rr-keys");
    const stdfs::path pinning = tmp.path() / "pinning.yaml";
    // key_19999 is zipped with python by the pinning and set by the recipe
    // config alone (as python-feedstock's is_python_min): it must survive the
    // pruning, or the zip is only partly set.
    std::ofstream(pinning) << "python:\n  - 3.12.* *_cpython\nzip_keys:\n  -\n    - python\n    - key_19999\n"
                              "key_19999:\n  - x\n";
    std::string many;
    for (int i = 0; i < 20000; ++i) many += "key_" + std::to_string(i) + ": '" + std::to_string(i) + "'\n";
    std::string err;
    const stdfs::path big = tmp.path() / "big-feedstock", small = tmp.path() / "small-feedstock";
    REQUIRE(rerender(feedstock(big, many), pinning, tmp.path() / "big", err) == 0);
    INFO(err);
    // The benign twin: only the used key and the pinning's zip partner.
    REQUIRE(rerender(feedstock(small, "key_7: '7'\nkey_19999: '19999'\n"), pinning, tmp.path() / "small", err) == 0);
    const auto want = files(tmp.path() / "small");
    CHECK(files(tmp.path() / "big") == want);
    REQUIRE(want.count("linux_64_.yaml"));
    CHECK(want.at("linux_64_.yaml").find("key_7:\n- '7'") != std::string::npos);
}
