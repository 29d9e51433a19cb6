#pragma once
// A wheel's RECORD against what the wheel holds (PEP 376/427): every file is
// listed once, with `sha256=<urlsafe base64, no padding>` and its size;
// RECORD itself (and signatures beside it) are listed without a hash; no
// line names a file that is not there.
#include <filesystem>
#include <string>
#include <vector>

#include "binary/check_elf.hpp"

namespace sf::binary {

// `root` is the unpacked wheel; `files` its files, relative and sorted.
std::vector<Finding> check_record(const std::string& artifact, const std::filesystem::path& root,
                                  const std::vector<std::string>& files);

// One CSV row as Python's csv module writes it (quotes only when needed).
std::vector<std::string> parse_csv_row(const std::string& line);

// urlsafe base64 of raw bytes, without '=' padding (a RECORD hash).
std::string urlsafe_b64_nopad(const std::string& bytes);

}  // namespace sf::binary
