// Concurrent installs into one prefix serialize on the prefix lock: after 3
// installs of different versions of one package race, the prefix holds
// exactly one record for it and every file that record lists. (Concurrent
// builds: test_build_race.cpp.)
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "craft.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"
#include "util/fs.hpp"

using namespace sf::test::craft;

TEST_CASE("security: 3 concurrent installs into one prefix x 30 rounds leave one consistent record", "[security]") {
    sf::fs::TempDir tmp("sf-sec-race");
    stdfs::path ch = tmp.path() / "channel", pkgs = tmp.path() / "pkgs";
    std::vector<Pkg> versions;
    for (std::string v : {"1.0", "2.0", "3.0"}) {
        Pkg p = pkg_with("racer", {});
        p.version = v;
        // Shared and version-specific files, so a mix-up would show.
        for (int i = 0; i < 20; ++i) p.members.push_back({"share/racer/common" + std::to_string(i), 'f', v + "\n"});
        p.members.push_back({"share/racer/only-" + v, 'f', v + "\n"});
        versions.push_back(p);
    }
    write_channel(ch, versions);
    const int rounds = 30;
    for (int round = 0; round < rounds; ++round) {
        stdfs::path prefix = tmp.path() / ("prefix" + std::to_string(round));
        std::vector<pid_t> pids;
        std::vector<stdfs::path> logs;
        for (int i = 0; i < 3; ++i) {
            std::string spec = "racer ==" + versions[static_cast<size_t>(i)].version;
            logs.push_back(tmp.path() / ("log" + std::to_string(i)));
            pids.push_back(spawn({sf::test::binary().string(), "install", "-q", "-p", prefix.string(), "-c", ch.string(),
                                  "--pkgs-dir", pkgs.string(), "--platform", "linux-64", spec},
                                 logs.back()));
        }
        INFO("round " << round << " installs");
        CHECK(wait_all(pids, logs) == "");
        // Exactly one record, and every file it lists, with its version's content.
        std::vector<stdfs::path> records;
        for (const auto& e : stdfs::directory_iterator(prefix / "conda-meta"))
            if (e.path().extension() == ".json") records.push_back(e.path());
        INFO("round " << round);
        REQUIRE(records.size() == 1);
        auto rec = json::parse(sf::test::slurp(records[0]));
        std::string v = rec["version"];
        for (const auto& f : rec["files"]) CHECK(sf::test::slurp(prefix / f.get<std::string>()) == v + "\n");
        // Nothing else: no file of another version, no trash left behind.
        std::size_t files = 0;
        for (auto it = stdfs::recursive_directory_iterator(prefix); it != stdfs::recursive_directory_iterator(); ++it) {
            std::string rel = it->path().lexically_relative(prefix).string();
            CHECK(rel.find(".splitforge") == std::string::npos);
            if (it->is_regular_file() && !sf::str::starts_with(rel, "conda-meta/")) ++files;
        }
        CHECK(files == rec["files"].size());
    }
}
