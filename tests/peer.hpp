#pragma once
// The reference conda (conda 24.11.2 + conda-build, ../shared/peer) for tests
// that check splitforge's output against it. $PEER (default /tmp/peer) when
// installed there; else installed once into <build>/peer by the peer's own
// setup.sh (offline: no apt, no smoke test), under a lock so that parallel
// tests wait for one install. A machine where that fails (no source mirrors,
// Debian's python3 packages missing) skips, with setup.sh's reason.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "testproc.hpp"
#include "testutil.hpp"

namespace sf::test {

inline bool peer_installed(const std::filesystem::path& root) {
    std::error_code ec;
    return std::filesystem::exists(root / "venv/bin/conda", ec) && std::filesystem::exists(root / "condarc", ec);
}

// Call before making anything that needs cleaning up (a skip exits).
inline std::filesystem::path peer_root() {
    const char* env = std::getenv("PEER");
    std::filesystem::path given = env && *env ? env : "/tmp/peer";
    if (peer_installed(given)) return given;
    std::filesystem::path root = binary().parent_path().parent_path() / "peer";
    std::filesystem::create_directories(root.parent_path());
    fs::FileLock lock(root.string() + ".lock");
    if (peer_installed(root)) return root;
    process::Command c;
    c.argv = {"bash", (shared_dir() / "peer/setup.sh").string()};
    c.env = process::current_env();
    c.env["PEER"] = root.string();
    c.env["SKIP_APT"] = "1";
    c.env["PEER_SELFTEST"] = "0";
    auto r = process::capture(c);
    if (!r || r->exit_code != 0 || !peer_installed(root)) {
        std::string why = r ? r->err : r.error().str();
        auto lines = str::split_lines(why);
        skip("the reference conda cannot be installed here (../shared/peer/setup.sh: " +
             (lines.empty() ? std::string("no output") : lines.back()) + ")");
    }
    return root;
}

// The environment the peer's activate.sh sets, with its package cache and
// envs below `scratch` (nothing of one test's packages leaks into another's).
inline process::Env peer_env(const std::filesystem::path& root, const std::filesystem::path& scratch) {
    process::Env e = process::current_env();
    for (const char* k : {"CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_SHLVL", "CONDA_EXE", "CONDA_PYTHON_EXE"})
        e.erase(k);
    e["PATH"] = (root / "bin").string() + ":" + (root / "venv/bin").string() + ":" + e["PATH"];
    e["CONDARC"] = (root / "condarc").string();
    e["CONDA_PKGS_DIRS"] = (scratch / "conda-pkgs").string();
    e["CONDA_ENVS_PATH"] = (scratch / "conda-envs").string();
    e["CONDA_SOLVER"] = "classic";
    e["CONDA_NOTIFY_OUTDATED_CONDA"] = "false";
    e["CONDA_REPORT_ERRORS"] = "false";
    return e;
}

// Runs argv in `env` (in `cwd` when given); fails the test only when it could not start.
inline Ran run_in(const std::vector<std::string>& argv, const process::Env& env,
                  const std::filesystem::path& cwd = {}) {
    process::Command c;
    c.argv = argv;
    c.env = env;
    if (!cwd.empty()) c.cwd = cwd;
    auto r = process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->out, r->err};
}

}  // namespace sf::test
