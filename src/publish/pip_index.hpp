#pragma once
// A pip index over a folder of wheels, as PyTorch's download.pytorch.org/whl
// pages are made (test-infra's manage_v2.py): PEP 503 pages under
// <dir>/simple/, each link `../../<wheel>#sha256=<hex>` with
// `data-requires-python` (the wheel's METADATA Requires-Python) and the PEP
// 658/714 core metadata: `<wheel>.metadata` beside each wheel (its METADATA,
// byte for byte) named by `data-dist-info-metadata` and `data-core-metadata`
// with its sha256. Written under <dir>/.index.lock, each page atomically;
// pages and .metadata files of wheels no longer there are removed.
//
// What `splitforge index DIR` takes DIR for (`folder_kind`): a wheel folder
// holds *.whl files directly and no conda subdir (a platform name such as
// linux-64/ or noarch/); a folder with conda subdirs is a channel; one with
// both is refused, naming a wheel and a subdir.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::publish {

enum class FolderKind { conda_channel, wheel_folder };

Result<FolderKind> folder_kind(const std::filesystem::path& dir);

struct PipIndexOptions {
    // Keep the newest N dev versions (PEP 440 order, the local part ignored)
    // of each project on its page; older dev versions are left off the page
    // but their files stay, as manage_v2.py hides them ([pip-keep-hides]).
    // Final and pre-release versions always stay.
    std::optional<int> keep;
};

struct PipIndexStats {
    int projects = 0, wheels = 0;
    int hidden = 0;  // wheels --keep left off their pages
    std::vector<std::string> warnings;  // wheels skipped, with why
};

Result<PipIndexStats> index_wheels(const std::filesystem::path& dir, const PipIndexOptions& opts = {});

// The core metadata of one wheel (its .dist-info/METADATA), checked against
// the file name: Name and Version must be the ones it carries.
Result<std::string> wheel_metadata(const std::filesystem::path& wheel);

// A METADATA header's value ("Requires-Python"); "" when absent. Folded
// continuation lines are joined as RFC 822 says.
std::string metadata_field(const std::string& metadata, const std::string& key);

// `&<>"'` as HTML entities.
std::string html_escape(const std::string& s);

}  // namespace sf::publish
