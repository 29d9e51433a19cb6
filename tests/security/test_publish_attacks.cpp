// The publish worker (engine/publish.hpp) tests an output while the next one
// builds. A failed test is reported once and leaves a consistent channel; a
// Ctrl-C while both run ends splitforge in seconds, kills both children,
// publishes nothing and leaves no package anywhere (an interrupted test is
// no failed one: nothing goes to broken/).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "craft.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf::test::craft;
using namespace std::chrono_literals;

namespace {

// Every .conda and temp file below `out` (work dir excluded), relative.
std::vector<std::string> leftovers(const stdfs::path& out) {
    std::vector<std::string> found;
    for (auto it = stdfs::recursive_directory_iterator(out); it != stdfs::recursive_directory_iterator(); ++it) {
        const std::string name = it->path().filename().string();
        if (name == ".splitforge-work") {
            it.disable_recursion_pending();
            continue;
        }
        if (sf::str::ends_with(name, ".conda") || name.find(".sftmp-") != std::string::npos)
            found.push_back(it->path().lexically_relative(out).string());
    }
    std::sort(found.begin(), found.end());
    return found;
}

// The channel's repodata lists exactly the .conda files in its subdir.
void check_channel_consistent(const stdfs::path& subdir) {
    auto j = nlohmann::json::parse(sf::test::slurp(subdir / "repodata.json"));
    std::set<std::string> listed, present;
    for (const auto& [fn, rec] : j["packages.conda"].items()) listed.insert(fn);
    for (const auto& e : stdfs::directory_iterator(subdir))
        if (sf::str::ends_with(e.path().string(), ".conda")) present.insert(e.path().filename().string());
    CHECK(listed == present);
}

bool alive(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

pid_t read_pid(const stdfs::path& p) {
    std::ifstream in(p);
    long pid = 0;
    in >> pid;
    return static_cast<pid_t>(pid);
}

}  // namespace

TEST_CASE("security: a failed test beside the next build is reported once, the channel stays whole", "[security][build]") {
    sf::fs::TempDir tmp("sf-sec-publish");
    const stdfs::path out = tmp.path() / "out";
    sf::process::Command c{{sf::test::binary().string(), "build", (sf::test::data_dir() / "engine/test_overlap").string(),
                            "--output-folder", out.string(), "-q", "--variant", "sf_ov_fail=1"},
                           {}, sf::process::current_env(), {}, {}, {}};
    auto r = sf::process::capture(c);
    REQUIRE(r);
    INFO(r->err);
    CHECK(r->exit_code == 1);
    std::size_t reported = 0;
    for (auto at = r->err.find(": test: failed"); at != std::string::npos; at = r->err.find(": test: failed", at + 1))
        ++reported;
    CHECK(reported == 1);
    CHECK(leftovers(out).size() == 1);  // broken/sf-ov-a-...
    check_channel_consistent(out / "linux-64");
}

TEST_CASE("security: Ctrl-C while a test runs beside the next build stops both and publishes nothing",
          "[security][build]") {
    sf::fs::TempDir tmp("sf-sec-publish");
    const stdfs::path out = tmp.path() / "out", mark = tmp.path() / "mark", log = tmp.path() / "log";
    stdfs::create_directories(mark);
    pid_t pid = spawn({sf::test::binary().string(), "build", (sf::test::data_dir() / "security/overlap_int").string(),
                       "--variant", "sf_mark=" + mark.string(), "--output-folder", out.string(), "-q"},
                      log);
    REQUIRE(pid > 0);
    bool both = false;
    for (int i = 0; i < 600 && !both; ++i) {  // the two builds and a test env: seconds
        both = stdfs::exists(mark / "a-test.pid") && stdfs::exists(mark / "b-build.pid");
        if (!both) std::this_thread::sleep_for(100ms);
    }
    if (!both) ::kill(pid, SIGKILL);
    INFO(sf::test::slurp(log));
    REQUIRE(both);
    std::this_thread::sleep_for(200ms);  // the pid files are written before the sleeps start
    ::kill(pid, SIGINT);
    auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() - t0 < 20s)
        std::this_thread::sleep_for(50ms);
    if (::waitpid(pid, &status, WNOHANG) == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        FAIL("splitforge did not end within 20 s of SIGINT");
    }
    const std::string err = sf::test::slurp(log);
    INFO(err);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) != 0);
    CHECK(err.find("interrupted (Ctrl-C)") != std::string::npos);
    std::this_thread::sleep_for(500ms);  // the watchdogs' kills land
    CHECK_FALSE(alive(read_pid(mark / "a-test.pid")));
    CHECK_FALSE(alive(read_pid(mark / "b-build.pid")));
    CHECK(leftovers(out).empty());
    check_channel_consistent(out / "linux-64");
}
