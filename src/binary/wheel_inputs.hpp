#pragma once
// What the wheel writer starts from: the conda packages in a folder (a
// channel's subdirs, or package files straight in it), read by their
// info/index.json, and for one package the dependency closure a wheel is
// made of, chosen as a solver would (the newest version, then build number,
// matching every spec of that name).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "types/package_record.hpp"

namespace sf::binary {

struct PackageFile {
    std::filesystem::path file;  // the .conda or .tar.bz2
    types::PackageRecord record;  // its info/index.json
    std::uint64_t size = 0;       // of the file
};

// Every package in `folder` and in its direct subdirectories, sorted by
// file name; a .conda wins over a .tar.bz2 of the same name-version-build.
// A package whose metadata cannot be read is an error naming it.
Result<std::vector<PackageFile>> scan_packages(const std::filesystem::path& folder);

// The dependency closure of `root` among `all`: every package reached
// through `depends`, one per name, minus the names in `stop` (not entered,
// nor their dependencies: `python` for a wheel). A dependency no package in
// `all` is named after is left out (it is the system's, or a virtual
// package); one whose name is there but no version of which matches is an
// error naming `root` and the spec. Ordered: root first, then breadth first.
Result<std::vector<const PackageFile*>> dependency_closure(const std::vector<PackageFile>& all,
                                                          const PackageFile& root,
                                                          const std::vector<std::string>& stop);

}  // namespace sf::binary
