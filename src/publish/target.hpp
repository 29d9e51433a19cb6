#pragma once
// Where `splitforge upload --to TARGET` puts files: a local channel or wheel
// folder (file://DIR), an S3 bucket (s3://BUCKET/PREFIX), a server that
// takes PUT (http(s)://..., artifactory and WebDAV), anaconda.org
// (anaconda://OWNER[/LABEL]) or prefix.dev (prefix://CHANNEL). Parsed once;
// what prints of it is masked (a password in the URL never shows).
#include <string>

#include "core/error.hpp"

namespace sf::publish {

struct Target {
    enum class Kind { file, s3, http, anaconda, prefix };
    Kind kind = Kind::file;
    std::string path;    // file: the directory
    std::string bucket;  // s3
    std::string prefix;  // s3: "" or "a/b", no slash at either end
    std::string url;     // http: the base URL, with its credentials, no trailing slash
    std::string owner;   // anaconda: the user or organization
    std::string label;   // anaconda: "" when the target names none
    std::string channel; // prefix
    std::string shown;   // the target as printed (masked)
};

Result<Target> parse_target(const std::string& text);

}  // namespace sf::publish
