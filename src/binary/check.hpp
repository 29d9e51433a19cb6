#pragma once
// `splitforge check`: the checks PyTorch's release tooling makes on its
// binaries, for each kind (artifact.hpp):
//   - links: every DT_NEEDED found through $ORIGIN RPATHs inside the
//     artifact, its dependencies (conda: installed from the channel into a
//     temp prefix) or its bundle (wheel: torch.libs/), or on the platform's
//     allow-list; no absolute build or host RPATH (check_elf.hpp);
//   - the C++11 ABI: no old std::string / std::list in c10::, at::, torch::
//     among exported symbols (check_abi.hpp);
//   - a wheel's RECORD (check_record.hpp);
//   - a libtorch archive: its layout for its kind (libtorch.hpp; a
//     without-deps one may NEED the libraries its dependencies.json names),
//     and (only when asked: it executes the archive's CMake code and
//     libraries) the consumer program configured, built and run against it
//     with LD_LIBRARY_PATH unset (without-deps: set to its run dependencies,
//     installed from the channels).
// Every problem is a Finding (one line naming the artifact, the file inside
// it and the library, symbol or path); an Error is for an artifact that
// cannot be read at all.
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "binary/artifact.hpp"
#include "binary/check_elf.hpp"
#include "core/error.hpp"
#include "core/report.hpp"
#include "env/channel.hpp"

namespace sf::binary {

struct CheckOptions {
    std::vector<std::filesystem::path> channels;  // conda dependencies; empty: the channel next to the file
    std::set<std::string> host_provided;           // names the host provides (the system map's ignore entries)
    std::set<std::string> system_libraries;        // library stems the system map maps packages to (libopenblas.so)
    // Building the consumer runs code from the archive (its TorchConfig.cmake
    // at configure time, its libraries' initialisers at run time), so it is
    // opt-in: only for archives the caller trusts (ones it just made).
    enum class Consumer { skip, build_and_run } consumer = Consumer::skip;
    std::filesystem::path pkgs_dir;               // the dependencies' package cache; empty: env::default_pkgs_dir()
    env::Network network = env::Network::online;  // --offline: the caches only
    Reporter* reporter = nullptr;
};

struct CheckResult {
    std::filesystem::path file;
    ArtifactKind kind = ArtifactKind::conda;
    std::uint64_t size = 0;
    std::size_t elf_files = 0;
    std::vector<std::string> checks;  // what was checked ("links", "abi", "record", "consumer")
    std::vector<Finding> findings;
    bool ok() const { return findings.empty(); }
};

Result<CheckResult> check_artifact(const std::filesystem::path& file, const CheckOptions& opts);

// Per kind, in ArtifactKind order, only kinds present: how many, how many
// passed, their total size.
struct KindSummary {
    ArtifactKind kind = ArtifactKind::conda;
    std::size_t count = 0, passed = 0;
    std::uint64_t size = 0;
};
std::vector<KindSummary> summarize(const std::vector<CheckResult>& results);

// Builds the consumer program against `libtorch_dir` (an unpacked archive's
// libtorch/) in a temp dir and runs it, LD_LIBRARY_PATH unset; findings name
// the step that failed and its last output lines. `deps_prefix` (a
// without-deps archive's run dependencies, installed; empty for none) is
// what its user provides: on CMAKE_PREFIX_PATH, and on LD_LIBRARY_PATH for
// every step (the linker finds a shared library's NEEDED there too).
Result<std::vector<Finding>> check_consumer(const std::string& artifact, const std::filesystem::path& libtorch_dir,
                                            const std::filesystem::path& deps_prefix, Reporter& reporter);

}  // namespace sf::binary

namespace sf::env {
struct SystemMap;
}

namespace sf::binary {

// The host-provided names (`ignore` entries) and library stems (`library`
// candidates) of the system provider's map: what a conda package may need
// from the host.
void use_system_map(CheckOptions& o, const env::SystemMap& map);

}  // namespace sf::binary
