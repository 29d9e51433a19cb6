#pragma once
// The one way splitforge runs git. A checkout or a git source comes from
// someone else, and git runs programs its config names: core.fsmonitor on
// every index read, hooks, core.sshCommand, pagers, credential helpers,
// transport helpers (`ext::cmd`). Each call here gets a fixed configuration:
// no system or global config, a child environment without GIT_* variables
// but ours, and command-line settings (git's highest priority, above a
// repository's own .git/config and whatever it includes) that turn off every
// program-running key the subcommands we run read. Values taken from a
// recipe or a checkout are operands: never an option (a leading '-' is
// refused here too), placed after `--end-of-options` or before a final `--`.
#include <filesystem>
#include <string>
#include <vector>

#include "process/process.hpp"

namespace sf::process {

// Where a call's operands go: after `--end-of-options` (clone, apply), or
// before a final `--` for `git checkout`, which (git 2.39) takes
// `--end-of-options` for a path.
enum class Operands { after_end_of_options, before_dash_dash };

// Whether git looks for a repository around its directory (`git apply` must
// not: the work dir may hold a source's .git with a config of its own).
enum class Repository { discover, none };

struct GitCall {
    std::vector<std::string> args;      // the subcommand and our own options: fixed text, never data
    std::vector<std::string> operands;  // revisions, URLs and paths from a recipe or a checkout
    Operands placement = Operands::after_end_of_options;
    Repository repository = Repository::discover;
    std::filesystem::path repo;         // `git -C REPO`; empty: none
    std::filesystem::path cwd;          // the child's working directory; empty: ours
    Env env;                            // the base environment; its GIT_* variables are dropped
};

// The settings every call carries, `-c key=value` each (for tests and the README).
const std::vector<std::string>& git_safe_config();

// The argv and environment of a call, or an error when an operand starts with '-'.
Result<Command> git_command(const GitCall& call);

// Runs a call and captures its output (process::capture's contract).
Result<Outcome> git(const GitCall& call);

}  // namespace sf::process
