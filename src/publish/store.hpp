#pragma once
// A remote place files go to, by key ("linux-64/a-1-0.conda"): an S3 bucket
// (SigV4-signed, s3_store.cpp) or a server that takes PUT (http_store.cpp).
// The upload and the remote channel index (remote_index.cpp) speak only this.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "publish/aws.hpp"

namespace sf::publish {

struct RemoteObject {
    std::uint64_t size = 0;
    std::string sha256;  // as we stored it (x-amz-meta-sha256); "" when the server does not say
    std::string md5;     // an S3 ETag of a single PUT; "" otherwise
};

class Store {
public:
    virtual ~Store() = default;
    // The key's URL as printed (masked).
    virtual std::string shown(const std::string& key) const = 0;
    virtual Result<std::optional<RemoteObject>> head(const std::string& key) = 0;
    // nullopt: not there.
    virtual Result<std::optional<std::string>> get(const std::string& key, std::uint64_t max_bytes) = 0;
    virtual Result<void> put_file(const std::string& key, const std::filesystem::path& file, const std::string& sha256) = 0;
    virtual Result<void> put_bytes(const std::string& key, const std::string& bytes, const std::string& content_type) = 0;
};

struct S3Place {
    std::string bucket, prefix;
};
std::unique_ptr<Store> s3_store(const S3Place& place, AwsSetup setup);

// `token`: sent as "Authorization: Bearer"; "" for none (credentials in the
// URL are sent as basic auth).
std::unique_ptr<Store> http_store(const std::string& base_url, const std::string& token);

// "HTTP 403 (...)" and the server's own words (an S3 error's Code and
// Message), secrets masked.
std::string answer_text(long status, const std::string& body, const std::vector<std::string>& secrets);

}  // namespace sf::publish
