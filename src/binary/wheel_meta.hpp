#pragma once
// The text a wheel carries about itself (PEP 427, PEP 376, core metadata
// 2.1) and the names the wheel writer derives from a conda package: the
// version with its variant's local part, the Python tags, the bundled
// libraries' hashed names. Pure functions: no I/O.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf::binary {

// Unpadded URL-safe base64 (RFC 4648 section 5), as RECORD writes digests.
std::string urlsafe_b64_nopad(std::string_view bytes);

// A RECORD hash of the given SHA-256 hex digest: "sha256=<urlsafe b64>".
Result<std::string> record_hash_from_hex(std::string_view sha256_hex);

struct RecordEntry {
    std::string path;  // '/'-separated, relative to the wheel's root
    std::string hash;  // "sha256=..."
    std::uint64_t size = 0;
};

// RECORD: one CSV line per entry, in the order given, then RECORD's own
// line with an empty hash and size. Fields holding a comma, a quote or a
// line break are quoted as Python's csv module quotes them.
std::string record_text(const std::vector<RecordEntry>& entries, std::string_view record_path);

struct WheelMetadata {
    std::string name;             // the distribution ("torch")
    std::string version;          // a PEP 440 version, local part included
    std::string summary;          // one line
    std::string requires_python;  // ">=3.12,<3.13"; empty: none
    std::string license;          // SPDX or free text; empty: none
    std::string home_page;        // empty: none
};

// METADATA (core metadata 2.1). Line breaks in a field become spaces.
std::string metadata_text(const WheelMetadata& m);

// WHEEL: Wheel-Version 1.0, the generator, Root-Is-Purelib: false, one Tag
// line per tag ("cp312-cp312-manylinux_2_17_x86_64").
std::string wheel_text(std::string_view generator, const std::vector<std::string>& tags);

// The local version label of a conda build string's variant, as PyTorch
// names its wheels: "cpu_generic_py312_h0_0" -> "cpu", "cuda130_generic..."
// -> "cu130"; a BLAS other than generic is appended ("cpu_mkl..." ->
// "cpu.mkl"), so the two BLAS variants of one build never share a name.
// Empty: the build string names no cpu/cuda variant.
std::string local_version(std::string_view build_string);

// conda version + local label as a PEP 440 version: "0.3.0" + "cpu" ->
// "0.3.0+cpu". Refused: a conda version PEP 440 cannot spell without
// guessing (only digits, dots and the pre/post/dev letters pass).
Result<std::string> wheel_version(std::string_view conda_version, std::string_view local);

// From a conda `python` dependency ("python >=3.12,<3.13.0a0" or
// "python 3.12.*"): the minor version, "3.12". Empty: none found.
std::string python_minor(const std::vector<std::string>& depends);
// "3.12" -> "cp312" (the python and abi tags of a CPython extension).
std::string cpython_tag(std::string_view minor);
// "3.12" -> ">=3.12,<3.13".
std::string requires_python_for(std::string_view minor);

// Where a file of a conda package goes in the wheel, PyTorch's layout:
// `site` ("lib/python3.12/site-packages/") files to the wheel's root,
// lib/*.so* to <dist>/lib/, lib/cmake/ to <dist>/share/cmake/, include/,
// share/ and bin/ under <dist>/. Empty: no place in a wheel (other files
// of the prefix; the conda package's own .dist-info or .egg-info, which
// the wheel's replaces; __pycache__, which pip compiles again).
std::string wheel_member_path(std::string_view conda_path, std::string_view site, std::string_view dist);

// auditwheel's name for a bundled library: the file's name with the first
// 8 hex digits of its SHA-256 after the first dot-free part
// ("libminimagma.so.2.8.0" -> "libminimagma-1a2b3c4d.so.2.8.0"); a name
// already carrying that hash is kept.
std::string hashed_library_name(std::string_view file_name, std::string_view sha256_hex);

}  // namespace sf::binary
