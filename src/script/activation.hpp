#pragma once
// conda's activation before a script, as conda-build's build_env_setup.sh
// does it (`conda activate HOST`, then `conda activate --stack BUILD`; a
// test: `conda activate TEST`): per prefix, conda's variables (CONDA_SHLVL,
// CONDA_PREFIX, CONDA_PREFIX_N, CONDA_STACKED_N, CONDA_DEFAULT_ENV,
// CONDA_PROMPT_MODIFIER, PATH with PREFIX/bin in front), then its
// etc/conda/activate.d/*.sh sourced in order. A fixed wrapper script does it
// in the script's own shell; every path reaches it as an argument, never as
// shell text. A script that fails stops the run, named with its package
// ([activation-failed]; conda-build stops too, naming no script).
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::script {

struct ActivatedPrefix {
    std::filesystem::path prefix;
    std::string role;                           // "host", "build", "test": for messages
    std::vector<std::filesystem::path> scripts;  // etc/conda/activate.d/*.sh, in order
    std::vector<std::string> packages;           // who installed each ("" unknown)
};

// The stack, in activation order: the first is activated, the rest stacked.
using ActivationStack = std::vector<ActivatedPrefix>;

// How the command after activation runs: a build script sourced in the
// activated shell (conda-build's conda_build.sh), or an argv exec'd from it.
enum class After { source_script, exec };

struct Activated {
    std::vector<std::string> argv;  // bash -e WRAPPER STATUS ... -- MODE ...
    std::filesystem::path status;   // where the wrapper names a failed script
};

// Writes the wrapper into `dir` and returns the command that activates
// `stack` and then runs `command` (After::source_script: one file).
Result<Activated> activated_command(const ActivationStack& stack, const std::filesystem::path& dir, After how,
                                    const std::vector<std::string>& command);

// After the command ended: the [activation-failed] error when one of the
// stack's scripts failed (the wrapper said so), else nothing.
Result<void> activation_result(const Activated& a, const ActivationStack& stack);

// The shell text that reproduces the activation when sourced
// (build_env_setup.sh): the wrapper's function and one quoted call per prefix.
std::string activation_text(const ActivationStack& stack);

}  // namespace sf::script
