// Fuzz target: the ELF readers of package/, as build postprocessing and
// `splitforge check` use them on files they did not write. The input is the
// whole file: read_elf (rpath, NEEDED, SONAME), read_elf_symbols (verneed,
// verdef, versym, .dynsym, the x86 ISA note), find_build_id, and the two
// in-place rewriters (normalize_nvcc_temp_names, rehash_build_id) on a copy.
// Errors are fine; a crash, a hang, an allocation the file's size does not
// bound (-rss_limit_mb / -malloc_limit_mb), or an error that is not one line
// naming the file is not.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "package/elf.hpp"
#include "package/elf_symbols.hpp"

namespace stdfs = std::filesystem;

namespace {

const stdfs::path& file() {
    static const stdfs::path p = [] {
        auto d = stdfs::temp_directory_path() / ("fuzz_elf-" + std::to_string(::getpid()));
        stdfs::create_directories(d);
        return d / "lib.so";
    }();
    return p;
}

template <class R>
void one_line(const R& r) {
    if (r) return;
    const std::string s = r.error().str();
    if (s.find('\n') != std::string::npos || s.find(file().string()) == std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    {
        std::ofstream out(file(), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    auto info = sf::package::read_elf(file());
    one_line(info);
    auto syms = sf::package::read_elf_symbols(file());
    one_line(syms);
    if (info && syms && info->is_elf != syms->is_elf) std::abort();  // the two readers agree on what is ELF
    one_line(sf::package::find_build_id(file()));
    one_line(sf::package::normalize_nvcc_temp_names(file()));
    one_line(sf::package::rehash_build_id(file()));
    return 0;
}
