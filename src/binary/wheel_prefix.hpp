#pragma once
// A wheel has no install step to write its location into files, as conda's
// installer does for a file holding the prefix placeholder (paths.json's
// prefix_placeholder). What `splitforge wheel` does with such a file:
//   - a CMake file the wheel ships under <dist>/share/cmake/ (*.cmake) whose
//     every use of the placeholder names a file or directory the wheel ships
//     at the place the wheel layout puts it: each `<placeholder>/<path>`
//     becomes `${CMAKE_CURRENT_LIST_DIR}/<path relative to the file>`, which
//     CMake resolves from the file's own directory wherever pip put it
//     (PyTorch's wheels ship their CMake files relocatable the same way);
//   - anything else is refused, naming the package and the file: a binary
//     placeholder, a text one outside CMake files (a script's shebang, a
//     header), or a CMake path the wheel does not ship at that place (a
//     dependency's library, the bare prefix, lib/ as a whole).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace sf::binary {

struct PlaceholderFile {
    std::string package;      // the package file's name, for messages
    std::string rel;          // its path in the package
    std::string dest;         // its path in the wheel
    std::string placeholder;  // paths.json's prefix_placeholder
    bool binary = false;      // paths.json's file_mode is binary
};

// A CMake file's text is read only up to this (a wheel's CMake files are small).
inline constexpr std::uint64_t kMaxPlaceholderText = 16u << 20;  // 16 MiB

// Whether the file is one the wheel may relocate at all (a text CMake file
// under <dist>/share/cmake/); decided before its text is read.
Result<void> placeholder_file_allowed(const PlaceholderFile& f, std::string_view dist);

// The file's text with every placeholder path made relative to the file;
// `ships(path)`: the wheel holds that file or directory ('/'-separated,
// relative to its root). An input error names the package, the file and
// the first path it cannot relocate.
Result<std::string> relocate_placeholder_text(const PlaceholderFile& f, std::string_view text, std::string_view site,
                                              std::string_view dist,
                                              const std::function<bool(const std::string&)>& ships);

}  // namespace sf::binary
