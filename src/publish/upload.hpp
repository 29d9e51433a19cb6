#pragma once
// `splitforge upload --to TARGET FILE...` (and `build --upload-to`): conda
// packages or wheels to a target (target.hpp), then the target's index:
//   file://DIR   a conda channel: copied into <subdir>/ and indexed under the
//                channel lock (channel::add_packages); a wheel folder: copied,
//                then the pip index (pip_index.hpp);
//   s3://B/P     each package PUT to P/<subdir>/<file>, then each touched
//                subdir's repodata.json fetched, merged and PUT last, so a
//                reader never sees repodata naming a missing file
//                (remote_index.cpp); wheels to P/<file> with <file>.metadata;
//   https://...  the same layout over PUT; its index too unless
//                RemoteIndex::no (a server such as artifactory that indexes
//                conda repositories itself).
// Every target: each file is checked before any is sent; a file of the same
// name with other content is refused (the error names it) unless
// Existing::replace, the same content is left alone, and credentials never
// appear in what is printed. DryRun::yes lists what would go where and
// contacts nothing.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::publish {

enum class DryRun { no, yes };
enum class Replace { no, yes };
enum class RemoteIndex { yes, no };

struct UploadOptions {
    Replace replace = Replace::no;
    DryRun dry_run = DryRun::no;
    RemoteIndex index = RemoteIndex::yes;
    std::string token;  // https: Bearer; never printed
    std::map<std::string, std::string> env;  // AWS_* and HOME, as the process has them
};

struct UploadLine {
    std::string file;  // the local file's name
    std::string dest;  // where it goes, masked
    std::string action;  // "uploaded", "unchanged", "replaced", "would upload"
};

struct UploadReport {
    std::vector<UploadLine> files;
    std::vector<std::string> indexed;  // index files written (or that would be), masked
};

Result<UploadReport> upload(const std::string& target, const std::vector<std::filesystem::path>& files,
                            const UploadOptions& opts);

}  // namespace sf::publish
