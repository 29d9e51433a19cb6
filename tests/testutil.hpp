#pragma once
// Shared test helpers: paths to data, an RAII temp dir, running the binary,
// and (from testskip.hpp) skip() for a test that cannot run here.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "testskip.hpp"

#include "util/fs.hpp"

namespace sf::test {

inline std::filesystem::path data_dir() { return SF_TEST_DATA; }
inline std::filesystem::path source_dir() { return SF_SOURCE_DIR; }
inline std::filesystem::path shared_dir() { return SF_SHARED_DIR; }
inline std::filesystem::path binary() { return SF_BINARY; }

inline std::string slurp(const std::filesystem::path& p) {
    auto r = fs::read_file(p);
    return r ? *r : std::string{};
}

// Set SF_UPDATE_SNAPSHOTS=1 to rewrite snapshot files instead of comparing.
inline bool update_snapshots() {
    const char* v = std::getenv("SF_UPDATE_SNAPSHOTS");
    return v && std::string(v) == "1";
}

}  // namespace sf::test
