#pragma once
// The splitforge binary run as a user runs it, for the channel tests: exit
// code, stdout and stderr, with extra environment variables set in the child.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "testutil.hpp"

namespace sf::test {

struct CliRun {
    int exit = -1;
    std::string out, err;
};

inline CliRun run_splitforge(const std::filesystem::path& tmp, std::vector<std::string> args,
                             const std::vector<std::pair<std::string, std::string>>& env = {}) {
    args.insert(args.begin(), binary().string());
    std::fflush(nullptr);
    const std::filesystem::path out = tmp / "stdout.log", err = tmp / "stderr.log";
    pid_t pid = ::fork();
    if (pid == 0) {
        if (!std::freopen(err.c_str(), "w", stderr) || !std::freopen(out.c_str(), "w", stdout)) ::_exit(126);
        for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

inline std::string trim_nl(const std::string& s) {
    auto b = s.find_first_not_of(" \n"), e = s.find_last_not_of(" \n");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// A refusal: exit 1 or 2, and one line on stderr.
inline void check_refused_in_one_line(const CliRun& r) {
    INFO(r.err);
    CHECK((r.exit == 1 || r.exit == 2));
    CHECK(!trim_nl(r.err).empty());
    CHECK(trim_nl(r.err).find('\n') == std::string::npos);
}

}  // namespace sf::test
