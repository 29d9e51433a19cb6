#pragma once
// conda-build 24.11's post-build linkage checks (post.py
// check_overlinking_impl), on an output's files as they will be packaged:
//
// overlinking: every DT_NEEDED of every dynamic ELF file must resolve (through
//   the file's RPATH, which relocation has made $ORIGIN-relative into lib/)
//   to this package, to a package of the host prefix that is a run
//   dependency, to the sysroot (glibc's libraries), to a host library standing
//   in for a run dependency (the system provider's map), or to
//   build/missing_dso_whitelist. Otherwise it is reported per file and
//   library, an error under error_overlinking.
// overdepending: a run dependency installed in the host prefix that ships
//   shared libraries (or declares run_exports) none of which any file links;
//   an error under error_overdepending. libgcc-ng/libgcc and
//   build/ignore_run_exports are never reported, as in conda-build.
// runpaths: a DT_RUNPATH left in a file (conda-build's relocation writes
//   DT_RPATH) is reported unless build/runpath_whitelist is set.
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::package {

// A package installed in the host prefix: its conda-meta record.
struct PrefixPackage {
    std::string name, dist;
    std::vector<std::string> files;  // relative to the prefix
    bool has_run_exports = false;    // conda-build's "run-exports library"
    std::string version = {}, build = {};  // as the record says ("" where it says nothing)
};

// What the host provides in place of conda packages: a library file name
// (a glob: "libopenblas.so*") and the packages it stands for.
struct StandIn {
    std::string library;
    std::vector<std::string> packages;
};

enum class LinkError { warn, error };  // error_overlinking / error_overdepending

struct LinkageOptions {
    std::string output;                      // the dist, for messages
    std::filesystem::path host_prefix;       // the run prefix, as on disk
    std::string prefix_string;               // the prefix as written into the files (absolute RPATHs)
    std::vector<std::string> run_depends;    // the output's run requirements (match specs or names)
    std::vector<std::string> ignore_run_exports;
    std::vector<PrefixPackage> packages;     // installed in host_prefix
    std::vector<StandIn> stand_ins;          // host libraries standing in for packages
    std::vector<std::string> missing_dso_whitelist, runpath_whitelist, ignore_patterns;
    std::vector<std::filesystem::path> system_lib_dirs = default_system_lib_dirs();
    LinkError overlinking = LinkError::warn, overdepending = LinkError::warn;

    static std::vector<std::filesystem::path> default_system_lib_dirs();
};

enum class LinkSeverity { info, warning, error };

struct LinkMessage {
    LinkSeverity severity = LinkSeverity::info;
    std::string file;  // relative to the package root; empty: the package as a whole
    std::string text;  // "lib/libx.so: libfoo.so.1 ..." (one line)
    std::string hint;  // what to do about it (warnings and errors)
};

struct LinkageReport {
    std::vector<LinkMessage> messages;
    std::size_t count(LinkSeverity s) const;
};

// Checks the files under `dir` (the output's files, relative to the prefix).
Result<LinkageReport> check_linkage(const std::filesystem::path& dir, const LinkageOptions& opts);

// The conda-meta records of `prefix` (none: an empty list).
Result<std::vector<PrefixPackage>> read_prefix_packages(const std::filesystem::path& prefix);

// The runtimes the host's compilers stand in for (libstdc++.so.6 for
// libstdcxx-ng and libstdcxx, ...): conda-forge's ctng-compilers packages.
std::vector<StandIn> compiler_runtime_stand_ins();

// conda-build's fnmatch, case-insensitive and with / for \ (caseless_sepless_fnmatch).
bool caseless_fnmatch(const std::string& path, const std::string& pattern);

}  // namespace sf::package
