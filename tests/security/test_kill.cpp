// kill -9 at random moments: nothing half-written stays, the next run sweeps
// what the killed one left, and no child of a build script survives.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "craft.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf::test::craft;

namespace {


int run_to_end(const std::vector<std::string>& argv) {
    int status = 0;
    ::waitpid(spawn(argv), &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Running (not a zombie)?
bool running(pid_t pid) {
    std::string stat = sf::test::slurp("/proc/" + std::to_string(pid) + "/stat");
    if (stat.empty()) return false;
    auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

bool wait_until(const std::function<bool()>& cond, int ms) {
    for (int i = 0; i < ms / 20; ++i) {
        if (cond()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return cond();
}

// Temp files and staging dirs anywhere under root.
std::vector<std::string> leftovers(const stdfs::path& root) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(root, ec); it != stdfs::recursive_directory_iterator();
         it.increment(ec)) {
        std::string n = it->path().filename().string();
        if (n.find(".tmp-") != std::string::npos || n.find("staging-") != std::string::npos ||
            n.find(".extract-") != std::string::npos || sf::str::starts_with(n, ".splitforge-trash"))
            out.push_back(it->path().lexically_relative(root).string());
    }
    return out;
}

}  // namespace

TEST_CASE("security: kill -9 during install and index leaves nothing the next run does not sweep", "[security][kill]") {
    sf::fs::TempDir tmp("sf-sec-kill");
    stdfs::path ch = tmp.path() / "channel", pkgs = tmp.path() / "pkgs", prefix = tmp.path() / "prefix";
    std::vector<Pkg> pkgs_list;
    for (int i = 0; i < 6; ++i) {
        Pkg p = pkg_with("k" + std::to_string(i), {});
        for (int f = 0; f < 200; ++f) p.members.push_back({"share/k" + std::to_string(i) + "/f" + std::to_string(f), 'f', std::string(2000, 'a' + i)});
        if (i > 0) p.depends = {"k" + std::to_string(i - 1)};
        pkgs_list.push_back(p);
    }
    write_channel(ch, pkgs_list);
    std::string bin = sf::test::binary().string();
    std::mt19937 rng(12345);
    for (int round = 0; round < 15; ++round) {
        INFO("round " << round);
        stdfs::remove_all(prefix);
        if (round % 3 == 0) stdfs::remove_all(pkgs);
        bool index = round % 2 == 1;
        std::vector<std::string> argv =
            index ? std::vector<std::string>{bin, "index", ch.string()}
                  : std::vector<std::string>{bin, "install", "-q", "-p", prefix.string(), "-c", ch.string(), "--pkgs-dir",
                                             pkgs.string(), "--platform", "linux-64", "k5"};
        pid_t pid = spawn(argv);
        std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 150000)(rng)));
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        // The next run of the same command succeeds and sweeps the rest.
        CHECK(run_to_end(argv) == 0);
        CHECK(leftovers(tmp.path()).empty());
        if (!index) {
            std::size_t records = 0;
            for (const auto& e : stdfs::directory_iterator(prefix / "conda-meta"))
                records += e.path().extension() == ".json";
            CHECK(records == 6);
        }
    }
}

TEST_CASE("security: a build script's children die with a killed splitforge", "[security][kill]") {
    sf::fs::TempDir tmp("sf-sec-kill-build");
    stdfs::path recipe = tmp.path() / "recipe", out = tmp.path() / "out";
    stdfs::path pidfile = tmp.path() / "child.pid", marker = tmp.path() / "first-run";
    stdfs::create_directories(recipe);
    std::ofstream(recipe / "meta.yaml") << "package:\n  name: sf-kill\n  version: 1.0.0\nbuild:\n  number: 0\n"
                                           "about:\n  license: MIT\n";
    // First run: start a long child and wait for it; later runs: finish.
    std::ofstream(recipe / "build.sh") << "if [ ! -e '" << marker.string() << "' ]; then\n  touch '" << marker.string()
                                       << "'\n  sleep 300 &\n  echo $! > '" << pidfile.string() << "'\n  wait\nfi\n"
                                       << "mkdir -p $PREFIX/share && echo ok > $PREFIX/share/sf-kill.txt\n";
    std::string bin = sf::test::binary().string();
    std::vector<std::string> argv{bin, "build", recipe.string(), "--output-folder", out.string(), "-q"};
    pid_t pid = spawn(argv);
    bool started = wait_until([&] { return !sf::test::slurp(pidfile).empty(); }, 120000);
    if (!started) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        FAIL("the build script never started");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    pid_t child = static_cast<pid_t>(std::stol(sf::test::slurp(pidfile)));
    REQUIRE(running(child));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    CHECK(wait_until([&] { return !running(child); }, 5000));
    if (running(child)) ::kill(child, SIGKILL);
    // The killed build's work area is there until the next build sweeps it.
    CHECK(run_to_end(argv) == 0);
    CHECK(stdfs::exists(out / "linux-64/sf-kill-1.0.0-0.conda"));
    std::error_code ec;
    CHECK(stdfs::is_empty(out / ".splitforge-work", ec));
    CHECK(leftovers(out).empty());
}
