#pragma once
// A zip's central directory, checked against its end record and its local
// headers before anything is extracted (internal to archive/). Python's
// zipfile (pip, auditwheel) refuses a name that differs between the two and
// a wrong CRC-32; libarchive reads either copy. Here every member must agree
// in both (name, method, CRC-32, sizes), lie inside the file, before the
// central directory and apart from the others, and the end record's entry
// count must be the number of entries the directory holds.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::archive {

struct ZipMember {
    std::string name;  // the bytes as stored
    std::uint32_t crc = 0;
    std::uint64_t csize = 0, usize = 0, local_offset = 0;
    std::uint64_t end = 0;  // past its data (and data descriptor)
    std::uint16_t method = 0, flags = 0;
};

// A member name for an error message: control bytes as \xNN, so that a
// name with a newline still makes one line.
std::string shown_name(const std::string& name);

// The members of the zip open as `fd` (`size` bytes), in directory order.
// Errors are the bare reason; the caller names the zip.
Result<std::vector<ZipMember>> read_zip_directory(int fd, std::uint64_t size);

}  // namespace sf::archive
