#pragma once
// Small wheels written at test time (a METADATA and one module), for the
// pip index and upload tests.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "archive/write.hpp"

namespace sf::test {

// <dir>/<dist>-<version>-py3-none-any.whl whose METADATA names `name` and
// `version` and carries `extra` header lines (e.g. "Requires-Python: >=3.9\n").
inline std::filesystem::path write_wheel(const std::filesystem::path& dir, const std::string& dist,
                                         const std::string& version, const std::string& extra = "",
                                         const std::string& name = "", const std::string& body = "x = 1\n") {
    std::filesystem::create_directories(dir);
    const std::filesystem::path file = dir / (dist + "-" + version + "-py3-none-any.whl");
    auto out = archive::OutputFile::create(file);
    REQUIRE(out);
    archive::ZipWriter zip(**out, 0);
    const std::string info = dist + "-" + version + ".dist-info/";
    REQUIRE(zip.add(dist + "/__init__.py", body));
    REQUIRE(zip.add(info + "METADATA", "Metadata-Version: 2.1\nName: " + (name.empty() ? dist : name) +
                                           "\nVersion: " + version + "\n" + extra + "\nA description.\n"));
    REQUIRE(zip.add(info + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"));
    REQUIRE(zip.add(info + "RECORD", ""));
    REQUIRE(zip.finish());
    REQUIRE((*out)->commit());
    return file;
}

}  // namespace sf::test
