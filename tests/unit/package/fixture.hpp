#pragma once
// Helpers shared by the package, channel and integration tests: a small
// payload with every kind of entry, and metadata for it.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "package/meta.hpp"

namespace sf::test {

inline void put(const std::filesystem::path& p, std::string_view content, unsigned mode = 0644) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary).write(content.data(), static_cast<std::streamsize>(content.size()));
    ::chmod(p.c_str(), mode);
}

// include/demo.h (text, holds `prefix`), lib/libdemo.so.1 (binary, holds
// `prefix`), lib/libdemo.so -> libdemo.so.1, bin/demo (0755), share/empty/.
inline void make_payload(const std::filesystem::path& dir, const std::string& prefix) {
    put(dir / "include/demo.h", "#define DEMO_PREFIX \"" + prefix + "\"\n");
    std::string bin("\x7f" "BIN\0\0", 6);
    bin += prefix + std::string("\0/lib\0", 6);
    put(dir / "lib/libdemo.so.1", bin, 0755);
    std::filesystem::create_symlink("libdemo.so.1", dir / "lib/libdemo.so");
    put(dir / "bin/demo", "#!/bin/sh\necho demo\n", 0755);
    std::filesystem::create_directories(dir / "share/empty");
}

inline package::PackageMeta demo_meta(std::string name = "demo", std::string version = "1.0",
                                      std::string build = "h0_0") {
    package::PackageMeta m;
    m.name = std::move(name);
    m.version = std::move(version);
    m.build = std::move(build);
    m.build_number = 0;
    m.subdir = *sf::types::Platform::parse("linux-64");
    m.license = "MIT";
    m.summary = "a demo";
    m.timestamp = 1700000000000;
    return m;
}

}  // namespace sf::test
