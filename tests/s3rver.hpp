#pragma once
// npm's s3rver for tests: an S3-compatible server on 127.0.0.1 (installed
// into the build dir by scripts/s3rver.sh), with the bucket "forge".
#include <catch2/catch.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include "testproc.hpp"

namespace sf::test {

namespace stdfs = std::filesystem;

// s3rver on a free port, serving `dir`, with the bucket "forge"; killed by the destructor.
class S3rver {
public:
    explicit S3rver(const stdfs::path& dir) {
        if (!test::have_tool("node") || !test::have_tool("npm")) FAIL("needs node and npm (bash scripts/deps.sh installs them)");
        auto env = process::current_env();
        env["SF_BUILD_DIR"] = test::binary().parent_path().parent_path().filename().string();
        process::Command c;
        c.argv = {"bash", (test::source_dir() / "scripts/s3rver.sh").string(), "--install-only"};
        c.env = env;
        auto inst = process::capture(c);
        REQUIRE(inst);
        INFO(inst->err);
        REQUIRE(inst->exit_code == 0);
        stdfs::create_directories(dir);
        for (int attempt = 0; attempt < 5 && pid_ <= 0; ++attempt) {
            port_ = 20000 + static_cast<int>((::getpid() * 7 + attempt * 131) % 30000);
            start(env, dir);
        }
        REQUIRE(pid_ > 0);
    }
    ~S3rver() {
        if (pid_ > 0) {
            ::kill(-pid_, SIGTERM);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

private:
    void start(const process::Env& env, const stdfs::path& dir) {
        const std::string script = (test::source_dir() / "scripts/s3rver.sh").string();
        const std::string port = std::to_string(port_), data = dir.string();
        const std::string build = env.at("SF_BUILD_DIR");
        pid_t pid = ::fork();
        if (pid == 0) {
            ::setpgid(0, 0);
            ::setenv("SF_BUILD_DIR", build.c_str(), 1);
            if (!std::freopen("/dev/null", "w", stdout)) ::_exit(126);
            ::execlp("bash", "bash", script.c_str(), "-d", data.c_str(), "-a", "127.0.0.1", "-p", port.c_str(), "-s",
                     "--configure-bucket", "forge", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        for (int i = 0; i < 200; ++i) {  // up to 20 s
            int st = 0;
            if (::waitpid(pid, &st, WNOHANG) == pid) return;
            auto r = test::run({"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", endpoint() + "/forge"});
            if (r.out != "000") {
                pid_ = pid;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
    int port_ = 0;
    pid_t pid_ = -1;
};

}  // namespace sf::test
