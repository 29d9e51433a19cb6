#pragma once
// tests/data/publish/fake_services.py on a free 127.0.0.1 port: anaconda.org's
// and prefix.dev's upload protocols, each request checked against them and
// logged (one JSON line each). Killed and reaped by the destructor. Call
// fake_services_python() first: with no python3 on PATH the test is SKIPPED.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "process/process.hpp"
#include "testskip.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

namespace sf::test {

// python3 from PATH (pyenv's shims included), else SKIPPED.
inline std::filesystem::path fake_services_python() {
    auto env = process::current_env();
    for (const char* name : {"python3", "python"})
        if (auto p = process::find_executable(name, env["PATH"])) return *p;
    skip("no python3 on PATH for the fake anaconda.org/prefix.dev server");
}

class FakeServices {
public:
    FakeServices(const std::filesystem::path& python, const std::filesystem::path& work, const std::string& token)
        : log_(work / "services.log") {
        const std::filesystem::path port_file = work / "services.port";
        std::filesystem::remove(port_file);
        const std::string script = (data_dir() / "publish/fake_services.py").string();
        pid_ = ::fork();
        if (pid_ == 0) {
            ::execl(python.c_str(), "python3", script.c_str(), token.c_str(), port_file.c_str(), log_.c_str(), nullptr);
            ::_exit(127);
        }
        for (int i = 0; i < 400 && !std::filesystem::exists(port_file); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        if (!std::filesystem::exists(port_file)) throw std::runtime_error("fake_services.py did not start");
        port_ = std::stoi(slurp(port_file));
    }
    ~FakeServices() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    FakeServices(const FakeServices&) = delete;
    FakeServices& operator=(const FakeServices&) = delete;

    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

    // Every request answered since the last call, in order.
    std::vector<nlohmann::json> take_log() {
        std::vector<nlohmann::json> out;
        if (!std::filesystem::exists(log_)) return out;
        for (const auto& line : str::split_lines(slurp(log_)))
            if (!str::trim(line).empty()) out.push_back(nlohmann::json::parse(line));
        std::filesystem::remove(log_);
        return out;
    }

private:
    std::filesystem::path log_;
    pid_t pid_ = -1;
    int port_ = 0;
};

// "METHOD /path STATUS" per request, the query kept, for one CHECK; a
// protocol error the server found is appended as " ERROR: ...".
inline std::vector<std::string> requests(const std::vector<nlohmann::json>& log) {
    std::vector<std::string> out;
    for (const auto& e : log) {
        std::string s = e["method"].get<std::string>() + " " + e["path"].get<std::string>() + " " + std::to_string(e["status"].get<int>());
        if (e.contains("error")) s += " ERROR: " + e["error"].get<std::string>();
        out.push_back(s);
    }
    return out;
}

}  // namespace sf::test
