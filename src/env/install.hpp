#pragma once
// The installer: resolves specs against channels (local or over HTTP),
// fetches packages into a sha256-keyed cache, and links them into a prefix the way conda does:
// hardlinks where possible, symlinks recreated, prefix placeholders replaced
// (text: every occurrence; binary: inside NUL-terminated strings, NUL-padded
// to keep the length), and conda-meta/<name>-<version>-<build>.json records
// plus conda-meta/history, so `conda list -p PREFIX` shows the packages.
//
// It is transactional: everything that can fail without touching the prefix
// (solving, sha256/size checks, extraction, placeholder lengths) happens
// first; while linking, every file that is replaced is moved aside, and on any
// failure the prefix is put back exactly as it was.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "env/channel.hpp"
#include "types/platform.hpp"

namespace sf::env {

namespace stdfs = std::filesystem;

enum class LinkMode { hardlink_or_copy, copy };

// Whether an install runs code from the packages it links: their link
// scripts (pre-link, post-link, pre-unlink) and the env's own python
// compiling .pyc files. `no` is conda's --no-scripts, and more: a command
// that only reads, checks or repackages what it is given (check, wheel,
// libtorch-archive, inspect, test --no-scripts) must never run it. Only
// `install` and the build and test environments say `yes`.
enum class RunScripts { no, yes };

// How far downloading the packages has got: files and bytes (bytes_total
// counts the sizes repodata gives).
struct DownloadProgress {
    std::size_t files_done = 0, files_total = 0;
    std::uint64_t bytes_done = 0, bytes_total = 0;
};
using DownloadReport = std::function<void(const DownloadProgress&)>;

struct InstallOptions {
    // In priority order: URLs (https, http, file), local directories or
    // channel names (env/channel.hpp resolves them).
    std::vector<std::string> channels;
    stdfs::path pkgs_dir;                        // package cache; empty: default_pkgs_dir()
    // conda's pkgs_dirs (.condarc's, for whoever reads it), shared with
    // conda: archives are taken from them and given to the first writable
    // one, under conda's locks. Empty: $CONDA_PKGS_DIRS, else none.
    std::vector<stdfs::path> conda_pkgs_dirs;
    Network network = Network::online;           // offline: repodata and packages from the caches only
    types::Platform platform = types::Platform::current();
    LinkMode link_mode = LinkMode::hardlink_or_copy;
    std::function<void(const std::string&)> on_progress;  // optional: one line per step
    std::function<void(const std::string&)> on_warning;   // optional: e.g. two packages ship one file
    DownloadReport on_download;  // optional: the packages' downloads, several times a second, and at their end
    // Names the host provides (the system provider's `ignore` entries: the
    // C/C++ runtimes, sysroots): met, as virtual packages are, when no
    // channel has them.
    std::set<std::string> host_provided;
    // Names the prefix already holds outside any package (the system
    // provider's venv: python): met whatever the channels have, never linked.
    std::set<std::string> in_prefix;
    // The environment the packages' link scripts (pre-link, post-link,
    // pre-unlink) run in, under conda's variables (install_detail.hpp
    // run_link_script); unset: process::minimal_env().
    std::optional<std::map<std::string, std::string>> script_env;
    // Off unless the caller asks: see RunScripts.
    RunScripts run_scripts = RunScripts::no;
    // conda's --dry-run: solve and report (InstallResult's lists) what
    // would change; no package is fetched, and the prefix and the package
    // cache are left as they are (repodata is still fetched and cached).
    bool dry_run = false;
};

struct InstallResult {
    std::vector<std::string> linked;     // dist names (name-version-build) newly installed
    std::vector<std::string> unchanged;  // already installed with the same name-version-build
    std::vector<std::string> removed;    // other builds/versions replaced by `linked`
    std::vector<std::string> warnings;   // e.g. "clobber: bin/foo is in both A and B; ..."
};

// `requests`: match specs ("foo >=1.2,<2") and/or package files (paths ending
// in .conda or .tar.bz2), which are installed as given, their dependencies
// coming from the channels.
Result<InstallResult> install(const stdfs::path& prefix, const std::vector<std::string>& requests,
                              const InstallOptions& options);

// Local channel directories as InstallOptions::channels takes them.
std::vector<std::string> channel_list(const std::vector<stdfs::path>& dirs);

// $SPLITFORGE_PKGS_DIR, else $XDG_CACHE_HOME/splitforge/pkgs, else ~/.cache/splitforge/pkgs.
stdfs::path default_pkgs_dir();

// conda's placeholder replacement, exposed for tests and the build engine.
// Both are one pass over the data (linear in its size and the output's).
//
// A placeholder is the prefix the package was built in; one shorter than
// kMinPlaceholder is refused (check_placeholder): replacing every "a" or "/"
// is no relocation, only a way to multiply a file's size.
inline constexpr std::size_t kMinPlaceholder = 8;
Result<void> check_placeholder(const std::string& placeholder);
// Text: all occurrences, then a too-long shebang (> 127 chars) becomes
// "#!/usr/bin/env <program>" as conda does on Unix. Fails, before building
// it, when the result would be over `max_size` bytes.
Result<std::string> replace_prefix_text(const std::string& data, const std::string& placeholder,
                                        const std::string& prefix, std::uint64_t max_size = ~std::uint64_t{0});
// Binary: every C string that contains the placeholder has each occurrence
// replaced and is padded with NULs to its old length. Fails if `prefix` is
// longer than `placeholder`.
Result<std::string> replace_prefix_binary(const std::string& data, const std::string& placeholder,
                                          const std::string& prefix);

}  // namespace sf::env
