#pragma once
// Running tools from tests (g++, patchelf, ...): one helper instead of a copy
// per test file. Tests that include this link the process stage.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "process/process.hpp"
#include "testutil.hpp"
#include "util/strings.hpp"

namespace sf::test {

// Runs argv with this process's environment (in `cwd` when given); the test
// fails unless it ran and exited 0. Returns its stdout, trimmed.
inline std::string run_ok(const std::vector<std::string>& argv, const std::filesystem::path& cwd = {}) {
    process::Command c;
    c.argv = argv;
    c.env = process::current_env();
    if (!cwd.empty()) c.cwd = cwd;
    auto r = process::capture(c);
    REQUIRE(r);
    INFO(argv[0] << ": " << r->err);
    REQUIRE(r->exit_code == 0);
    return std::string(str::trim(r->out));
}

// What a command did, whatever its exit code.
struct Ran {
    int rc = -1;
    std::string out, err;
};

// Runs argv with this process's environment (in `cwd` when given); the test
// fails only when it could not be started.
inline Ran run(const std::vector<std::string>& argv, const std::filesystem::path& cwd = {}) {
    process::Command c;
    c.argv = argv;
    c.env = process::current_env();
    if (!cwd.empty()) c.cwd = cwd;
    auto r = process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->out, r->err};
}

// The splitforge binary under test with `args`.
inline Ran run_splitforge(std::vector<std::string> args, const std::filesystem::path& cwd = {}) {
    args.insert(args.begin(), binary().string());
    return run(args, cwd);
}

// The splitforge binary with `args` as a user's clean shell runs it:
// process::minimal_env() plus `extra`, no stdin, in `cwd` when given; the
// test fails only when it could not be started.
inline process::Outcome sf_run(std::vector<std::string> args, process::Env extra = {}, const std::filesystem::path& cwd = {}) {
    args.insert(args.begin(), binary().string());
    process::Command c;
    c.cwd = cwd;
    c.argv = std::move(args);
    c.env = process::minimal_env();
    c.stdin_data = "";
    for (auto& [k, v] : extra) c.env[k] = v;
    auto r = process::capture(c);
    REQUIRE(r);
    return *r;
}

// The last non-blank line of `s`: where the CLI puts its one error line.
inline std::string last_line(const std::string& s) {
    auto lines = str::split_lines(s);
    while (!lines.empty() && str::trim(lines.back()).empty()) lines.pop_back();
    return lines.empty() ? "" : lines.back();
}

// Whether `tool` is on this process's PATH.
inline bool have_tool(const std::string& tool) {
    auto env = process::current_env();
    return process::find_executable(tool, env["PATH"]).has_value();
}

}  // namespace sf::test
