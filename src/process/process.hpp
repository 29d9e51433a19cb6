#pragma once
// The one process wrapper. Every child process splitforge starts goes through
// here: an argument vector (never a shell string built from data), an explicit
// environment (nothing inherited unless asked for), output streamed line by
// line with long paths masked (e.g. "$PREFIX"), and optionally tee'd to a log.
// This is the only place that includes Boost.Process.
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::process {

using Env = std::map<std::string, std::string>;

// Replaces each `path` with `name` in streamed/captured output, longest first.
struct Mask {
    std::string path;  // e.g. /tmp/sf-build-x1y2/host_env_placehold_...
    std::string name;  // e.g. $PREFIX
};

struct Command {
    std::vector<std::string> argv;        // argv[0] is looked up on env PATH if not absolute
    std::filesystem::path cwd;            // empty: current directory
    Env env;                              // the child's environment, exactly
    std::vector<Mask> masks;              // applied to streamed output and logs
    std::optional<std::filesystem::path> log;  // tee every output line here (appended)
    std::optional<std::string> stdin_data;     // fed to the child's stdin, then closed
};

struct Outcome {
    int exit_code = -1;  // 128+N when killed by signal N
    std::string out;     // captured stdout (capture()) or empty
    std::string err;     // captured stderr (capture()) or empty
};

// Environment helpers.
Env current_env();                                  // our own environment
Env minimal_env();                                  // PATH, HOME, LANG, TERM, TMPDIR, USER from ours
std::optional<std::filesystem::path> find_executable(const std::string& name,
                                                     const std::string& path_var);

// Runs and captures stdout/stderr (masked). Errors only when the program could
// not be started (not found, not executable); a non-zero exit is an Outcome.
Result<Outcome> capture(const Command& cmd);

// Runs and streams each line of stdout+stderr (masked) to `on_line`, which
// defaults to default_reporter().output_line() (a plain line on our stderr). The log, when set, gets every line.
Result<Outcome> stream(const Command& cmd,
                       const std::function<void(const std::string&)>& on_line = {});

// Every child runs in its own process group, which is killed when splitforge
// exits or dies (a watchdog process per child waits for that). Sends `sig` to
// the groups of the children running now: for a SIGINT/SIGTERM handler, as
// the terminal's Ctrl-C reaches only our own group. Async-signal-safe.
// It also asks them to stop for good: a child still running kStopGraceSeconds
// later is killed with its group (one that ignores SIGTERM must not keep
// splitforge waiting), and no child starts until clear_stop().
void forward_signal(int sig);
inline constexpr int kStopGraceSeconds = 3;
void clear_stop();

// Applies masks to one line (exposed for tests).
std::string apply_masks(std::string line, const std::vector<Mask>& masks);

}  // namespace sf::process
