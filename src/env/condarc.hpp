#pragma once
// The user's conda configuration as conda reads it: the .condarc files of
// conda's search path (POSIX part of conda/base/constants.py SEARCH_PATH,
// later files over earlier ones), then the CONDA_* environment variables over
// them. Merge rules are conda's: a scalar from the last source that sets it;
// a list with the lines of later sources first, then earlier ones, each line
// once; a map key by key, later over earlier. Only the keys splitforge uses
// are read; unknown keys are ignored, as conda warns and ignores them.
//
// Departures [condarc-subset]: `!important`/`#!final`, `!top`/`!bottom`
// markers are read as plain values, and $CONDA_ROOT's files are read only
// when $CONDA_ROOT is set (splitforge has no base install of its own).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::env {

namespace stdfs = std::filesystem;

// A value and where it came from: a file path, "$CONDA_X", a flag, "default".
struct Sourced {
    std::string value;
    std::string source;
};

struct Config {
    std::vector<std::string> files;  // the files read, lowest precedence first
    std::vector<Sourced> channels;   // empty: none configured
    std::vector<Sourced> default_channels;  // what `defaults` stands for
    std::vector<Sourced> pkgs_dirs;
    Sourced channel_alias{"https://conda.anaconda.org", "default"};
    Sourced ssl_verify{"true", "default"};  // true, false or a CA bundle path
    Sourced offline{"false", "default"};
    Sourced remote_max_retries{"3", "default"};
    Sourced remote_connect_timeout_secs{"30", "default"};
    Sourced remote_read_timeout_secs{"60", "default"};
    std::map<std::string, Sourced> custom_channels;  // name -> base URL
    std::map<std::string, Sourced> proxy_servers;    // "http", "https", "scheme://host" -> proxy
    Sourced conda_build_config_file{"", "default"};  // conda_build: config_file: (conda-build's user variant file)

    bool is_offline() const { return offline.value == "true"; }
};

// The .condarc files conda would read here, in precedence order (lowest
// first), whether or not they exist.
std::vector<stdfs::path> condarc_search_path();

// Reads the files of the search path that exist, then the environment. A
// malformed file is one input error naming file:line.
Result<Config> load_config();
// One file's text merged over `into` (for load_config and tests).
Result<void> merge_condarc(Config& into, const std::string& text, const std::string& source);
// The CONDA_* variables merged over `into`.
void merge_env(Config& into);

// The configuration channel names resolve under (channel.hpp) and the
// transfer settings net uses; until set, the environment over conda's
// defaults. apply_config returns its warnings (ssl_verify: false).
const Config& config();
std::vector<std::string> apply_config(Config c);

// The channels a solve uses, in priority order: those given (`-c`), then,
// unless `override_channels`, the configured ones; `defaults` stands for
// default_channels; each channel once.
std::vector<Sourced> effective_channels(const std::vector<std::string>& given, bool override_channels,
                                        const std::string& given_source = "-c");

// Each setting as `config --show` prints it: name, value with any
// credentials masked, and its source; maps as `key.name`; the transfer
// settings conda does not spell in .condarc (netrc, rattler's auth file, a
// CA bundle from the environment) with the variable or path they come from.
struct Shown {
    std::string key, value, source;
};
std::vector<Shown> shown_settings(const Config& c);
// Credentials in URLs inside `text` masked (net/url.hpp).
std::string masked(const std::string& text);

// `url` with $VAR and ${VAR} replaced as Python's os.path.expandvars does
// (an unset variable is left as written), and a leading ~ as the home.
std::string expand_vars(const std::string& s);

}  // namespace sf::env
