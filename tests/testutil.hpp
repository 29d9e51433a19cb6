#pragma once
// Shared test helpers: paths to data, an RAII temp dir, running the binary,
// and (from testskip.hpp) skip() for a test that cannot run here.
#include <sys/resource.h>

#include <csignal>
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

// While alive, a write past `bytes` fails with EFBIG (SIGXFSZ ignored), in
// this process and in the children it starts: a full disk that root gets
// too, for tests of write failures.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        ::getrlimit(RLIMIT_FSIZE, &old_);
        old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit lim{bytes, old_.rlim_max};
        ::setrlimit(RLIMIT_FSIZE, &lim);
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &old_);
        std::signal(SIGXFSZ, old_handler_);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;

private:
    rlimit old_{};
    void (*old_handler_)(int) = SIG_DFL;
};

}  // namespace sf::test
