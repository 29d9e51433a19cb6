// Fuzz target: the zip reader `splitforge check` gives wheels and libtorch
// archives. The input is the whole zip: its central directory is read and
// checked against the local headers (read_zip_directory), then it is
// extracted into a fresh directory (extract_zip: the same checks, then
// libarchive with the CRC-32 of every member's data). Errors are fine; a
// crash, a hang, an out-of-memory, a file left outside the destination or an
// error that is not one line is not.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "archive/zip_directory.hpp"
#include "archive/zip_read.hpp"

namespace stdfs = std::filesystem;

namespace {

const stdfs::path& work_dir() {
    static const stdfs::path dir = [] {
        auto d = stdfs::temp_directory_path() / ("fuzz_zip-" + std::to_string(::getpid()));
        stdfs::create_directories(d);
        return d;
    }();
    return dir;
}

void one_line(const sf::Error& e) {
    if (e.str().find('\n') != std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const stdfs::path zip = work_dir() / "in.zip", dest = work_dir() / "out";
    {
        std::ofstream out(zip, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    int fd = ::open(zip.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) std::abort();
    auto members = sf::archive::read_zip_directory(fd, size);
    ::close(fd);
    if (!members) one_line(members.error());
    auto done = sf::archive::extract_zip(zip, dest);
    if (!done) one_line(done.error());
    if (done && !members) std::abort();  // extraction never goes past a refused directory
    std::error_code ec;
    stdfs::remove_all(dest, ec);
    // Only in.zip (and out, removed) may be in the work dir: no temp dir left behind.
    for (const auto& e : stdfs::directory_iterator(work_dir()))
        if (e.path() != zip) std::abort();
    return 0;
}
