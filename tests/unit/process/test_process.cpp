#include <catch2/catch.hpp>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "process/process.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

using namespace sf;
using process::Command;

namespace {

process::Env sys_env() { return {{"PATH", "/usr/bin:/bin"}}; }

Command sh(const std::string& script) {
    Command c;
    c.argv = {"/bin/sh", "-c", script};
    c.env = sys_env();
    return c;
}

}  // namespace

TEST_CASE("process: the child gets exactly the environment given") {
    Command c;
    c.argv = {"/usr/bin/env"};
    c.env = {{"ALPHA", "1"}, {"BETA", "two words"}};
    auto r = process::capture(c);
    REQUIRE(r);
    CHECK(r->exit_code == 0);
    CHECK(r->out == "ALPHA=1\nBETA=two words\n");
}

TEST_CASE("process: an empty environment stays empty") {
    Command c;
    c.argv = {"/usr/bin/env"};
    auto r = process::capture(c);
    REQUIRE(r);
    CHECK(r->out.empty());
}

TEST_CASE("process: argv[0] is looked up on the child's PATH, not ours") {
    {
        fs::TempDir dir("sf-proc");
        auto tool = dir.path() / "sf-only-here";
        REQUIRE(fs::write_file_atomic(tool, "#!/bin/sh\necho found-it \"$@\"\n"));
        std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
        Command c;
        c.argv = {"sf-only-here", "x"};
        c.env = {{"PATH", "/usr/bin:/bin:" + dir.path().string()}};
        auto r = process::capture(c);
        REQUIRE(r);
        CHECK(r->out == "found-it x\n");

        c.env = sys_env();
        auto missing = process::capture(c);
        REQUIRE_FALSE(missing);
        CHECK(missing.error().str() == "cannot run 'sf-only-here': not found on PATH (PATH=/usr/bin:/bin)");
    }
}

TEST_CASE("process: find_executable") {
    CHECK(process::find_executable("sh", "/nonexistent:/bin") == std::filesystem::path("/bin/sh"));
    CHECK_FALSE(process::find_executable("sh", "/nonexistent"));
    CHECK_FALSE(process::find_executable("sh", ""));
    CHECK(process::find_executable("/bin/sh", "") == std::filesystem::path("/bin/sh"));
}

TEST_CASE("process: a missing program is a clear error") {
    SECTION("bare name") {
        Command c;
        c.argv = {"sf-no-such-tool-xyz"};
        c.env = sys_env();
        auto r = process::stream(c, [](const std::string&) {});
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "cannot run 'sf-no-such-tool-xyz': not found on PATH");
        CHECK(r.error().hint == "PATH=/usr/bin:/bin");
    }
    SECTION("path") {
        Command c;
        c.argv = {"/nonexistent/tool"};
        auto r = process::capture(c);
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "cannot run '/nonexistent/tool': no such file");
    }
    SECTION("no PATH at all") {
        Command c;
        c.argv = {"sh"};
        auto r = process::capture(c);
        REQUIRE_FALSE(r);
        CHECK(r.error().hint == "the child environment has no PATH");
    }
    SECTION("empty argv") {
        auto r = process::capture(Command{});
        REQUIRE_FALSE(r);
    }
}

TEST_CASE("process: exit codes") {
    SECTION("normal exit") {
        auto r = process::capture(sh("exit 3"));
        REQUIRE(r);
        CHECK(r->exit_code == 3);
    }
    SECTION("success") {
        auto r = process::capture(sh("true"));
        REQUIRE(r);
        CHECK(r->exit_code == 0);
    }
    SECTION("killed by a signal is 128+N") {
        auto r = process::capture(sh("kill -TERM $$"));
        REQUIRE(r);
        CHECK(r->exit_code == 128 + 15);
    }
}

TEST_CASE("process: a background child holding the output does not keep us waiting, and dies") {
    fs::TempDir tmp("sf-process");
    const auto pidfile = tmp.path() / "bg.pid";
    auto t = std::chrono::steady_clock::now();
    auto r = process::capture(sh("sleep 60 & echo $! > '" + pidfile.string() + "'; echo done"));
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    REQUIRE(r);
    CHECK(r->exit_code == 0);
    CHECK(r->out == "done\n");
    CHECK(seconds < 10);
    // The watchdog ended it with the group (it may take a moment to go).
    pid_t bg = static_cast<pid_t>(std::stol(test::slurp(pidfile)));
    bool gone = false;
    for (int i = 0; i < 250 && !gone; ++i) {
        std::string stat = test::slurp("/proc/" + std::to_string(bg) + "/stat");
        auto close = stat.rfind(')');
        gone = stat.empty() || (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z');
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(gone);
}

TEST_CASE("process: arguments are passed literally") {
    Command c;
    c.argv = {"/usr/bin/printf", "[%s]\\n", "a b", "'q'", "\"dq\"", "$(echo hi)", "`id`", "x;y", "*", ""};
    c.env = sys_env();
    auto r = process::capture(c);
    REQUIRE(r);
    CHECK(r->out == "[a b]\n['q']\n[\"dq\"]\n[$(echo hi)]\n[`id`]\n[x;y]\n[*]\n[]\n");
}

TEST_CASE("process: stdin data is fed and closed") {
    SECTION("small") {
        Command c;
        c.argv = {"/bin/cat"};
        c.stdin_data = "line one\nline two";
        auto r = process::capture(c);
        REQUIRE(r);
        CHECK(r->out == "line one\nline two");
    }
    SECTION("larger than a pipe buffer, echoed back") {
        Command c;
        c.argv = {"/bin/cat"};
        std::string big;
        for (int i = 0; i < 20000; ++i) big += "row " + std::to_string(i) + "\n";
        c.stdin_data = big;
        auto r = process::capture(c);
        REQUIRE(r);
        CHECK(r->out == big);
    }
    SECTION("a child that never reads does not hang or kill us") {
        Command c = sh("exit 0");
        c.stdin_data = std::string(1 << 20, 'x');
        auto r = process::capture(c);
        REQUIRE(r);
        CHECK(r->exit_code == 0);
    }
    SECTION("no data: stdin is at EOF") {
        auto r = process::capture(sh("cat; echo done"));
        REQUIRE(r);
        CHECK(r->out == "done\n");
    }
}

TEST_CASE("process: apply_masks replaces the longest path first") {
    std::vector<process::Mask> masks = {{"/tmp/b", "$BUILD_PREFIX"}, {"/tmp/b/host", "$PREFIX"}, {"", "$EMPTY"}};
    CHECK(process::apply_masks("cc -I/tmp/b/host/include -L/tmp/b/lib", masks) ==
          "cc -I$PREFIX/include -L$BUILD_PREFIX/lib");
    CHECK(process::apply_masks("nothing here", masks) == "nothing here");
}

TEST_CASE("process: stream masks lines, interleaves stderr, tees to the log") {
    fs::TempDir dir("sf-proc");
    auto prefix = (dir.path() / "host_env_placehold").string();
    Command c = sh("echo \"installing to " + prefix + "/lib\"; echo oops >&2; printf 'no newline'");
    c.masks = {{prefix, "$PREFIX"}};
    c.log = dir.path() / "logs" / "build.log";
    REQUIRE(fs::write_file_atomic(*c.log, "earlier\n"));  // the log is appended to
    std::vector<std::string> seen;
    auto r = process::stream(c, [&](const std::string& l) { seen.push_back(l); });
    REQUIRE(r);
    CHECK(r->exit_code == 0);
    CHECK(seen == std::vector<std::string>{"installing to $PREFIX/lib", "oops", "no newline"});
    CHECK(test::slurp(*c.log) == "earlier\ninstalling to $PREFIX/lib\noops\nno newline\n");
}

TEST_CASE("process: capture keeps stdout and stderr apart and masks both") {
    fs::TempDir dir("sf-proc");
    Command c = sh("echo out " + dir.path().string() + "; echo err " + dir.path().string() + " >&2; exit 1");
    c.masks = {{dir.path().string(), "$SRC_DIR"}};
    c.log = dir.path() / "cap.log";
    auto r = process::capture(c);
    REQUIRE(r);
    CHECK(r->exit_code == 1);
    CHECK(r->out == "out $SRC_DIR\n");
    CHECK(r->err == "err $SRC_DIR\n");
    CHECK(test::slurp(*c.log) == "out $SRC_DIR\nerr $SRC_DIR\n");
}

TEST_CASE("process: cwd is honoured, relative programs resolve against it") {
    fs::TempDir dir("sf-proc");
    REQUIRE(fs::write_file_atomic(dir.path() / "run.sh", "#!/bin/sh\npwd\n"));
    std::filesystem::permissions(dir.path() / "run.sh", std::filesystem::perms::owner_all);
    Command c;
    c.argv = {"./run.sh"};
    c.cwd = dir.path();
    c.env = sys_env();
    auto r = process::capture(c);
    REQUIRE(r);
    CHECK(r->out == std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST_CASE("process: current_env and minimal_env") {
    auto all = process::current_env();
    auto min = process::minimal_env();
    CHECK(all.count("PATH") == 1);
    CHECK(min.count("PATH") == 1);
    for (const auto& [k, v] : min) {
        CHECK(all.at(k) == v);
        CHECK((k == "PATH" || k == "HOME" || k == "LANG" || k == "TERM" || k == "TMPDIR" || k == "USER"));
    }
}

TEST_CASE("process: children started from several threads at once do not hold each other's pipes") {
    // If a pipe end leaked into a sibling child, `cat` would wait for an EOF
    // that never comes until that sibling exits; the results would still be
    // right, so check both the results and that every run ends.
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&ok, t] {
            for (int i = 0; i < 25; ++i) {
                Command c;
                c.argv = {"/bin/cat"};
                c.stdin_data = "thread " + std::to_string(t) + " run " + std::to_string(i) + "\n";
                auto r = process::capture(c);
                if (r && r->exit_code == 0 && r->out == *c.stdin_data) ++ok;
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(ok == 100);
}

TEST_CASE("process: a stop request ends a child that ignores it, and starts no new one") {
    using clock = std::chrono::steady_clock;
    std::optional<Result<process::Outcome>> r;
    auto t0 = clock::now();
    // SIGTERM ignored by the shell and, inherited, by its sleep.
    std::thread t([&] { r = process::capture(sh("trap '' TERM; echo started; sleep 30")); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    process::forward_signal(SIGTERM);
    auto t_stop = clock::now();
    t.join();
    double took = std::chrono::duration<double>(clock::now() - t_stop).count();
    CHECK(took < process::kStopGraceSeconds + 2);
    CHECK(std::chrono::duration<double>(clock::now() - t0).count() < 10);
    REQUIRE(r);
    REQUIRE(*r);
    CHECK((*r)->exit_code == 128 + SIGKILL);
    auto next = process::capture(sh("echo hi"));
    REQUIRE_FALSE(next);
    CHECK(next.error().message == "interrupted: not starting '/bin/sh'");
    process::clear_stop();
    auto again = process::capture(sh("echo hi"));
    REQUIRE(again);
    CHECK(again->out == "hi\n");
}
