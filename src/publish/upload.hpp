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
//                conda repositories itself);
//   anaconda://OWNER[/LABEL]  conda packages to anaconda.org as
//                anaconda-client uploads them (anaconda.cpp), under LABEL,
//                else UploadOptions::label, else main; token from
//                ANACONDA_API_TOKEN, API from ANACONDA_SERVER_URL
//                (default https://api.anaconda.org);
//   prefix://CHANNEL  conda packages to prefix.dev as rattler_upload sends
//                them (prefix_dev.cpp); key from PREFIX_API_KEY, server from
//                PREFIX_SERVER_URL (default https://prefix.dev).
// The token: UploadOptions::token (--token) first, else the target's
// variable (SPLITFORGE_UPLOAD_TOKEN for https).
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
    std::string token;  // --token: https's Bearer, anaconda's or prefix.dev's key; never printed
    std::string label;  // anaconda: the label when the target names none ("" for main)
    std::map<std::string, std::string> env;  // AWS_*, HOME and the tokens' variables, as the process has them
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
