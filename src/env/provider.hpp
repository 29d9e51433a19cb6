#pragma once
// Environment providers: make the build, host and test prefixes of one
// output from its requirements.
//
// system (default, offline), channels first:
//   in the channels (outputs just built included) -> our installer; python
//                          too when a channel has its own (not only the
//                          0_system stand-in the engine exports)
//   python [X.Y]        -> else a venv made from the discovered interpreter
//                          (build/host); in test prefixes the interpreter's
//                          package from the local channel (see engine)
//   in the system map (compilers, cmake, ninja, nvcc, BLAS) -> the host
//   anything else       -> an error naming it, suggesting --env-provider
//   (StandIns::refused, --no-system: the venv and the map are errors too)
// micromamba | mamba | conda (external; for machines with channel access):
//   `<tool> create -y -p PREFIX -c CH... --override-channels SPEC...` run
//   through the process wrapper, local channels as file:// URLs (a test's
//   package channel first); run_exports are read back from the installed
//   packages (conda-meta -> extracted_package_dir/info).
// pixi has no "create a prefix here" command; it is refused with a hint.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "env/install.hpp"
#include "env/provider_map.hpp"
#include "env/python_env.hpp"
#include "process/process.hpp"
#include "types/platform.hpp"
#include "types/recipe_values.hpp"

namespace sf::env {

enum class ProviderKind { system, micromamba, mamba, conda, pixi };
Result<ProviderKind> parse_provider(const std::string& s);
const char* to_string(ProviderKind k);

enum class EnvRole { build, host, test };

// Whether the system provider may stand host tools (and a venv) in for a
// requirement no channel provides (--no-system: refused).
enum class StandIns { allowed, refused };

struct EnvSpec {
    std::filesystem::path prefix;
    EnvRole role = EnvRole::host;
    std::vector<std::string> specs;                  // match specs (requirements)
    std::vector<std::filesystem::path> package_files;  // test: the package under test
    std::string python;                              // "3.12": the Python this env is for, if any
    // An indexed channel holding package_files (the engine's test channel):
    // an external solver takes a package only from a channel, and searches
    // this one first, as conda-build its local channel. The system provider
    // installs the files themselves.
    std::filesystem::path package_channel;
};

struct PreparedEnv {
    std::vector<std::string> installed;                     // dists installed from channels
    std::map<std::string, types::RunExports> run_exports;  // by package name
    std::vector<std::string> from_host;                     // "cmake -> /usr/bin/cmake", "gcc_linux-64 12.* -> /usr/bin/gcc (gcc 12.2.0)"
    std::vector<std::string> warnings;                      // a host compiler of another version than asked for
    std::vector<std::string> path_dirs;                     // dirs of mapped host tools, in order
    std::map<std::string, std::string> vars;                // CC, CXX, NVCC, CUDA_HOME
    // What the stood-in packages' activation scripts set (HOST, CFLAGS,
    // LDFLAGS, ...; system map `activate:`), ${PREFIX} & co. still unexpanded.
    std::map<std::string, std::string> activation;
    std::optional<Interpreter> python;                      // when `python` became a venv
};

struct ProviderContext {
    std::vector<std::filesystem::path> channels;  // local channel dirs (output channel first)
    std::vector<std::string> channel_urls;        // URLs and names as given, after `channels` (system: fetched, env/channel.hpp)
    std::filesystem::path pkgs_dir;               // installer cache; empty: default
    types::Platform platform;                     // the target: channels' subdir, compiler names
    process::Env env;                             // the environment tools are found and run in
    process::Env user_config;                     // external tools also get the user's own settings (user_tool_config)
    Interpreters pythons;
    SystemMap map;
    std::string tool;                             // external: executable (default: the kind's name)
    std::function<void(const std::string&)> on_line;
    // Build and test environments run their packages' link scripts (the
    // system provider's installs; RunScripts); nothing else does.
    RunScripts run_scripts = RunScripts::no;
    StandIns stand_ins = StandIns::allowed;
    Network network = Network::online;  // offline: the system provider reads only its caches
};

// The user's settings for conda, mamba and pixi (CONDA_*, CONDARC, MAMBA_*,
// *_PKGS_DIRS, PIXI_*, proxies and CA bundles) picked out of `all`: an
// external provider runs with them, under the variables splitforge sets.
// The shell's activation state (CONDA_PREFIX, CONDA_SHLVL, ...) is left out:
// it describes the user's shell, not how to solve.
process::Env user_tool_config(const process::Env& all);

class EnvProvider {
public:
    virtual ~EnvProvider() = default;
    virtual Result<PreparedEnv> create(const EnvSpec& spec) = 0;
    virtual ProviderKind kind() const = 0;
};

std::unique_ptr<EnvProvider> make_provider(ProviderKind kind, ProviderContext ctx);

// The argv an external provider runs to create a prefix (exposed for tests).
Result<std::vector<std::string>> external_create_argv(ProviderKind kind, const std::string& tool,
                                                      const std::filesystem::path& prefix,
                                                      const std::vector<std::string>& channels,
                                                      const std::vector<std::string>& specs);

// run_exports of every package installed in `prefix` (conda-meta records,
// then <extracted_package_dir>/info/run_exports.json).
std::map<std::string, types::RunExports> run_exports_in_prefix(const std::filesystem::path& prefix);

types::RunExports parse_run_exports(const std::string& json_text);

// Whether the system map's entry for `package` is found on this machine.
bool on_host(const SystemMap& map, const std::string& package, const process::Env& env);

}  // namespace sf::env
