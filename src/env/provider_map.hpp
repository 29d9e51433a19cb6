#pragma once
// The system provider's mapping table: which requirements the host satisfies
// (compilers, build tools, nvcc, BLAS) and how to check them. The defaults are
// compiled in (provider_map.cpp, YAML); `--system-map FILE` adds or overrides
// entries with the same format:
//
//   cmake:              {tool: [cmake]}
//   gcc_linux-64:       {tool: [gcc, cc], var: CC}
//   libcblas:           {library: [libcblas.so, libopenblas.so]}
//   sysroot_linux-64:   {ignore: true}
//   gcc_linux-64:       {tool: [gcc], var: CC, run_exports: {"12": {strong: [libgcc >=12]}}}
//   gcc_linux-64:       {tool: [gcc], var: CC, activate: {"*": {CFLAGS: "-O2 -isystem ${PREFIX}/include"}}}
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "process/process.hpp"
#include "types/recipe_values.hpp"

namespace sf::env {

enum class MapKind { tool, library, ignore };

struct MapEntry {
    std::string name;                     // requirement name, e.g. gcc_linux-64
    MapKind kind = MapKind::tool;
    std::vector<std::string> candidates;  // executables (tool) or file names (library)
    std::string var;                      // env var the tool's path goes into (CC, CXX, NVCC)
    SourceLoc origin;                     // where the entry was defined
    // What the conda-forge package it stands for exports, per version row
    // ("12", "2.17"); see the built-in table's comments for where they come from.
    std::vector<std::pair<std::string, types::RunExports>> run_exports;
    // What the package's activation script sets for a build, per version
    // row as run_exports ("*": every version; a version's row overrides it
    // variable by variable). Values may name ${TOOL} and ${TOOL_DIR} (the
    // host tool found), resolved by the provider, and ${PREFIX}, ${SRC_DIR},
    // ... (the script's environment), resolved by script_env.
    std::vector<std::pair<std::string, std::map<std::string, std::string>>> activate;
    std::vector<std::string> with;  // entries whose activation this one brings in (gxx -> gcc)

    // The row for a requirement ("gcc_linux-64 12.*" -> row "12"): the
    // longest row that is a component prefix of its version; null if none.
    const types::RunExports* run_exports_for(const std::string& spec) const;
    // The "*" row laid under the requirement's own row (same rule).
    std::map<std::string, std::string> activation_for(const std::string& spec) const;
};

struct SystemMap {
    std::map<std::string, MapEntry> entries;
    const MapEntry* find(const std::string& name) const;
};

// The built-in table.
SystemMap default_system_map();

// The YAML text of the built-in table (for `--system-map` docs and tests).
const char* default_system_map_yaml();

// Parses a table and adds its entries to `into` (later files override).
Result<void> extend_system_map(SystemMap& into, const std::string& yaml_text, const std::string& origin);
Result<void> extend_system_map_file(SystemMap& into, const std::filesystem::path& file);

// What satisfies one entry on this host.
struct HostMatch {
    std::filesystem::path path;  // the executable or library found
};

// Looks a mapped requirement up: tools on `env` PATH (nvcc also in
// $CUDA_HOME/bin and /usr/local/cuda/bin), libraries in the system library
// dirs and $MKLROOT. Errors name the entry and where it was searched.
Result<HostMatch> find_on_host(const MapEntry& e, const process::Env& env);

}  // namespace sf::env
