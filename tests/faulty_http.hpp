#pragma once
// tests/data/faulty_http.py on a free 127.0.0.1 port: an HTTP server that
// answers 500 once, stalls, truncates bodies or claims a 3 GiB body (see the
// script), for what nginx will not do. Killed and reaped by the destructor;
// python3 missing: the test is SKIPPED.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "testskip.hpp"
#include "testutil.hpp"

namespace sf::test {

class FaultyHttp {
public:
    // `root`: the files served under /<mode>/.
    explicit FaultyHttp(const std::filesystem::path& root, const std::filesystem::path& work) : log_(work / "faulty.log") {
        if (::access("/usr/bin/python3", X_OK) != 0) skip("python3 is not installed");
        const std::filesystem::path port_file = work / "faulty.port";
        std::filesystem::remove(port_file);
        const std::string script = (data_dir() / "faulty_http.py").string();
        pid_ = ::fork();
        if (pid_ == 0) {
            if (!std::freopen(log_.c_str(), "w", stdout)) ::_exit(126);
            ::execl("/usr/bin/python3", "python3", script.c_str(), root.c_str(), port_file.c_str(), nullptr);
            ::_exit(127);
        }
        for (int i = 0; i < 200 && !std::filesystem::exists(port_file); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        if (!std::filesystem::exists(port_file)) throw std::runtime_error("faulty_http.py did not start");
        port_ = std::stoi(slurp(port_file));
    }
    ~FaultyHttp() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            int st = 0;
            ::waitpid(pid_, &st, 0);
        }
    }
    FaultyHttp(const FaultyHttp&) = delete;
    FaultyHttp& operator=(const FaultyHttp&) = delete;

    // http://127.0.0.1:PORT/<mode><path>
    std::string url(const std::string& mode, const std::string& path) const {
        return "http://127.0.0.1:" + std::to_string(port_) + "/" + mode + path;
    }
    // "GET /path STATUS" lines, one per request answered.
    std::string log() const { return slurp(log_); }

private:
    std::filesystem::path log_;
    pid_t pid_ = -1;
    int port_ = 0;
};

}  // namespace sf::test
