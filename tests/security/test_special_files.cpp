// Hostile files where splitforge expects plain ones, and signals while it
// waits: a FIFO (which blocks a plain open() until a writer comes), a socket
// or a device given as an input, or inside a `path:` source, is refused
// without blocking, naming the file and what it is; SIGTERM ends a build
// promptly even when its script ignores SIGTERM or splitforge itself is
// blocked. Each run has a deadline: where splitforge used to hang, the test
// fails instead of hanging with it.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <thread>

#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;

namespace {

struct Run {
    int status = 0;          // waitpid's
    bool timed_out = false;  // killed at the deadline
    double seconds = 0;
    std::string err;
    int rc() const { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }
    std::string last_line() const {
        auto lines = sf::str::split_lines(err);
        while (!lines.empty() && sf::str::trim(lines.back()).empty()) lines.pop_back();
        return lines.empty() ? "" : lines.back();
    }
};

// The binary, started with stderr to a file in `cwd`; `signals` are sent at
// their times (seconds after the start, or once `ready` holds); killed at `deadline`.
struct Bounded {
    std::vector<std::string> args;
    stdfs::path cwd;
    double deadline = 30;
    std::function<bool(pid_t)> ready;  // default: at once
    std::vector<double> signal_after;  // seconds after ready: SIGTERM
};

pid_t start(const std::vector<std::string>& args, const stdfs::path& cwd, const stdfs::path& log) {
    std::vector<std::string> argv = args;
    argv.insert(argv.begin(), sf::test::binary().string());
    std::fflush(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
        if (::chdir(cwd.c_str()) != 0) ::_exit(126);
        int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int null = ::open("/dev/null", O_RDWR);
        if (fd < 0 || null < 0) ::_exit(126);
        ::dup2(null, 0), ::dup2(null, 1), ::dup2(fd, 2);
        std::vector<char*> v;
        for (auto& a : argv) v.push_back(a.data());
        v.push_back(nullptr);
        ::execv(v[0], v.data());
        ::_exit(127);
    }
    return pid;
}

Run run(const Bounded& b) {
    using clock = std::chrono::steady_clock;
    const stdfs::path log = b.cwd / "stderr.log";
    auto t0 = clock::now();
    pid_t pid = start(b.args, b.cwd, log);
    auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
    Run r;
    std::optional<double> ready_at;
    size_t sent = 0;
    while (true) {
        if (::waitpid(pid, &r.status, WNOHANG) == pid) break;
        if (!ready_at && (!b.ready || b.ready(pid))) ready_at = elapsed();
        if (ready_at && sent < b.signal_after.size() && elapsed() - *ready_at >= b.signal_after[sent]) {
            ::kill(pid, SIGTERM);
            ++sent;
        }
        if (elapsed() > b.deadline) {
            r.timed_out = true;
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &r.status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.seconds = elapsed() - ready_at.value_or(0);
    r.err = sf::test::slurp(log);
    return r;
}

Run run(std::vector<std::string> args, const stdfs::path& cwd, double deadline = 30) {
    return run(Bounded{std::move(args), cwd, deadline, {}, {}});
}

std::string refused(const stdfs::path& p, const std::string& kind) {
    return "splitforge: error: " + p.string() + ": " + kind + ", not a regular file (splitforge reads only plain files)";
}

// A listening-less unix socket at `p` (what bind() leaves behind).
void make_socket(const stdfs::path& p) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(p.string().size() < sizeof addr.sun_path);
    std::strcpy(addr.sun_path, p.c_str());
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    ::close(fd);
}

void write(const stdfs::path& p, const std::string& text) {
    stdfs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

const std::string kMeta = "package:\n  name: sf-special\n  version: 1.0.0\nbuild:\n  number: 0\nabout:\n  license: MIT\n";

bool running(pid_t pid) {
    std::string stat = sf::test::slurp("/proc/" + std::to_string(pid) + "/stat");
    auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

}  // namespace

TEST_CASE("security: a FIFO given to cmake-cache, package --meta, inspect or install is refused without blocking",
          "[security]") {
    sf::fs::TempDir tmp("sf-sec-special");
    const stdfs::path fifo = tmp.path() / "input.fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    SECTION("cmake-cache get") {
        Run r = run({"cmake-cache", "get", fifo.string(), "CMAKE_BUILD_TYPE"}, tmp.path());
        REQUIRE_FALSE(r.timed_out);
        CHECK(r.rc() == 2);
        CHECK(r.last_line() == refused(fifo, "a FIFO"));
    }
    SECTION("package --meta") {
        write(tmp.path() / "files/share/x.txt", "x\n");
        Run r = run({"package", (tmp.path() / "files").string(), "--meta", fifo.string(), "--output-folder",
                     (tmp.path() / "out").string()},
                    tmp.path());
        REQUIRE_FALSE(r.timed_out);
        CHECK(r.rc() == 2);
        CHECK(r.last_line() == refused(fifo, "a FIFO"));
    }
    SECTION("inspect and install of a FIFO named like a package") {
        const stdfs::path pkg = tmp.path() / "p-1.0-0.conda";
        REQUIRE(::mkfifo(pkg.c_str(), 0644) == 0);
        for (std::vector<std::string> args : {std::vector<std::string>{"inspect", pkg.string()},
                                              {"install", "-p", (tmp.path() / "prefix").string(), "--pkgs-dir",
                                               (tmp.path() / "pkgs").string(), pkg.string()}}) {
            INFO(args[0]);
            Run r = run(args, tmp.path());
            REQUIRE_FALSE(r.timed_out);
            CHECK(r.rc() == (args[0] == "install" ? 1 : 2));  // install: what fails after the request is the job
            CHECK(r.last_line() == refused(pkg, "a FIFO"));
        }
    }
}

TEST_CASE("security: rerender with a FIFO variant file neither blocks nor reads it", "[security]") {
    sf::fs::TempDir tmp("sf-sec-special-rerender");
    const stdfs::path recipe = tmp.path() / "recipe", variants = tmp.path() / "variants";
    write(recipe / "meta.yaml", kMeta);
    SECTION("as a -m config") {
        const stdfs::path fifo = tmp.path() / "cbc.yaml";
        REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
        Run r = run({"rerender", recipe.string(), "--variants-dir", variants.string(), "-m", fifo.string()},
                    tmp.path());
        REQUIRE_FALSE(r.timed_out);
        CHECK(r.rc() == 2);
        CHECK(r.last_line().find(fifo.string()) != std::string::npos);
        CHECK(r.last_line().find("a FIFO, not a regular file") != std::string::npos);  // not "not found"
    }
    SECTION("in the variants dir, where rerender compares what is there") {
        Run first = run({"rerender", recipe.string(), "--variants-dir", variants.string(), "--platform", "linux-64"},
                        tmp.path());
        REQUIRE(first.rc() == 0);
        const stdfs::path job = variants / "linux_64_.yaml";
        REQUIRE(stdfs::is_regular_file(job));
        std::string want = sf::test::slurp(job);
        stdfs::remove(job);
        REQUIRE(::mkfifo(job.c_str(), 0644) == 0);
        // --check: the FIFO is not the file rerender would write: stale.
        Run check = run({"rerender", recipe.string(), "--variants-dir", variants.string(), "--platform", "linux-64",
                         "--check"},
                        tmp.path());
        REQUIRE_FALSE(check.timed_out);
        CHECK(check.rc() == 1);
        // Writing replaces it with the file (a rename; the FIFO is never opened).
        Run w = run({"rerender", recipe.string(), "--variants-dir", variants.string(), "--platform", "linux-64"},
                    tmp.path());
        REQUIRE_FALSE(w.timed_out);
        CHECK(w.rc() == 0);
        CHECK(stdfs::is_regular_file(stdfs::symlink_status(job)));
        CHECK(sf::test::slurp(job) == want);
    }
}

TEST_CASE("security: a path: source holding a FIFO or a socket is refused before anything opens it",
          "[security]") {
    sf::fs::TempDir tmp("sf-sec-special-build");
    const stdfs::path recipe = tmp.path() / "recipe", src = tmp.path() / "src", out = tmp.path() / "out";
    write(recipe / "meta.yaml", kMeta + "source:\n  path: ../src\n");
    write(recipe / "build.sh", "mkdir -p $PREFIX/share && cp x.txt $PREFIX/share/\n");
    write(src / "x.txt", "x\n");
    stdfs::path special;
    std::string kind;
    SECTION("a FIFO at the top") {
        special = src / "pipe", kind = "a FIFO";
        REQUIRE(::mkfifo(special.c_str(), 0644) == 0);
    }
    SECTION("a FIFO in a subdirectory") {
        special = src / "sub/pipe", kind = "a FIFO";
        stdfs::create_directories(src / "sub");
        REQUIRE(::mkfifo(special.c_str(), 0644) == 0);
    }
    SECTION("a socket") {
        special = src / "sock", kind = "a socket";
        make_socket(special);
    }
    Run r = run({"build", recipe.string(), "--output-folder", out.string(), "-q"}, tmp.path(), 120);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.rc() != 0);
    INFO(r.err);
    // "<recipe>/../src/sub/pipe: ...: cannot copy source: a FIFO, not a regular file (remove it from the tree)"
    CHECK(r.last_line().find(special.lexically_relative(tmp.path()).string() + ": ") != std::string::npos);
    CHECK(r.last_line().find("cannot copy source: " + kind + ", not a regular file (remove it from the tree)") !=
          std::string::npos);
    CHECK(r.err.find("internal error") == std::string::npos);
    // Nothing reached the channel.
    CHECK_FALSE(stdfs::exists(out / "linux-64/sf-special-1.0.0-0.conda"));
}

TEST_CASE("security: SIGTERM ends a build whose script ignores it, and cleans up", "[security]") {
    sf::fs::TempDir tmp("sf-sec-sigterm");
    const stdfs::path recipe = tmp.path() / "recipe", out = tmp.path() / "out", pidfile = tmp.path() / "script.pid";
    write(recipe / "meta.yaml", kMeta);
    // SIGTERM ignored by the script and (inherited) by its sleep.
    write(recipe / "build.sh", "trap '' TERM\necho $$ > '" + pidfile.string() + "'\nsleep 300\n");
    Bounded b{{"build", recipe.string(), "--output-folder", out.string(), "-q"}, tmp.path(), 60, {}, {0}};
    b.ready = [&](pid_t) { return !sf::test::slurp(pidfile).empty(); };
    Run r = run(b);
    INFO(r.err);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.rc() != 0);
    CHECK(r.seconds < 10);  // the script gets 3 s, then its group is killed
    pid_t script = static_cast<pid_t>(std::stol(sf::test::slurp(pidfile)));
    CHECK_FALSE(running(script));
    // The work dir went with the build, and nothing reached the channel.
    std::error_code ec;
    CHECK((!stdfs::exists(out / ".splitforge-work") || stdfs::is_empty(out / ".splitforge-work", ec)));
    CHECK_FALSE(stdfs::exists(out / "linux-64/sf-special-1.0.0-0.conda"));
}

TEST_CASE("security: SIGTERM ends a build blocked in splitforge itself", "[security]") {
    sf::fs::TempDir tmp("sf-sec-sigterm-lock");
    const stdfs::path recipe = tmp.path() / "recipe", out = tmp.path() / "out";
    write(recipe / "meta.yaml", kMeta);
    write(recipe / "build.sh", "mkdir -p $PREFIX/share && echo ok > $PREFIX/share/x.txt\n");
    stdfs::create_directories(out);
    // Another process holds the channel lock: the build waits for it in flock().
    sf::fs::FileLock held(out / ".index.lock");
    auto waiting_on_lock = [&](pid_t pid) {
        std::error_code ec;
        for (const auto& fd : stdfs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec))
            if (stdfs::read_symlink(fd.path(), ec) == out / ".index.lock") return true;
        return false;
    };
    SECTION("one SIGTERM: the backstop ends it") {
        Run r = run(Bounded{{"build", recipe.string(), "--output-folder", out.string(), "-q"}, tmp.path(), 60,
                            waiting_on_lock, {0.3}});
        REQUIRE_FALSE(r.timed_out);
        CHECK(WIFSIGNALED(r.status));
        CHECK(r.rc() == 128 + SIGTERM);
        CHECK(r.seconds < 15);
    }
    SECTION("a second SIGTERM ends it at once") {
        Run r = run(Bounded{{"build", recipe.string(), "--output-folder", out.string(), "-q"}, tmp.path(), 60,
                            waiting_on_lock, {0.3, 0.6}});
        REQUIRE_FALSE(r.timed_out);
        CHECK(r.rc() == 128 + SIGTERM);
        CHECK(r.seconds < 3);
    }
}
