// Concurrent builds into one output folder (the install races are in
// test_concurrency.cpp). Slow: 90 builds.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "craft.hpp"
#include "oracle.hpp"
#include "testutil.hpp"

using namespace sf::test::craft;

// 3 builds race into one output folder: two of the same recipe (one package
// file, built twice) and one of another. The output folder serializes on the
// channel lock: after each round every package is there exactly once, listed
// once with its own size and sha256, and nothing of the builds is left over.
TEST_CASE("security: 3 concurrent builds into one output folder x 30 rounds keep one consistent channel",
          "[security][build]") {
    namespace oracle = sf::test::oracle;
    sf::fs::TempDir tmp("sf-sec-build-race");
    const stdfs::path out = tmp.path() / "out";
    auto recipe = [&](const std::string& name, const std::string& version) {
        stdfs::path dir = tmp.path() / ("recipe-" + name);
        stdfs::create_directories(dir);
        std::ofstream(dir / "meta.yaml") << "package:\n  name: " << name << "\n  version: " << version
                                         << "\nbuild:\n  number: 0\n  script:\n"
                                            "    - mkdir -p $PREFIX/share/" << name << "\n"
                                            "    - echo " << version << " > $PREFIX/share/" << name << "/v.txt\n"
                                            "test:\n  commands:\n    - test -f $PREFIX/share/" << name << "/v.txt\n"
                                            "about:\n  license: MIT\n";
        return dir;
    };
    std::multiset<std::string> expected;
    const int rounds = 30;
    for (int round = 0; round < rounds; ++round) {
        const std::string version = "1.0." + std::to_string(round);
        stdfs::path a = recipe("sf-race-a", version), b = recipe("sf-race-b", version);
        std::vector<stdfs::path> recipes{a, b, a};
        std::vector<pid_t> pids;
        std::vector<stdfs::path> logs;
        for (size_t i = 0; i < recipes.size(); ++i) {
            logs.push_back(tmp.path() / ("log" + std::to_string(i)));
            pids.push_back(spawn({sf::test::binary().string(), "build", recipes[i].string(), "--output-folder",
                                  out.string(), "-q"},
                                 logs.back()));
        }
        INFO("round " << round << " builds");
        CHECK(wait_all(pids, logs) == "");
        INFO("round " << round);
        for (const char* name : {"sf-race-a", "sf-race-b"}) expected.insert("linux-64/" + std::string(name) + "-" + version + "-0.conda");
        std::vector<std::string> problems;
        CHECK(oracle::indexed_packages(out, problems) == expected);
        CHECK(problems == std::vector<std::string>{});
        CHECK(oracle::leftovers(out) == std::vector<std::string>{});
        if (round == 0 || round == rounds / 2 || round == rounds - 1) CHECK(oracle::conda_check(out) == "");
    }
}
