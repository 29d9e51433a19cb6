#pragma once
// AWS Signature Version 4 (the Authorization header every S3 request
// carries), as AWS's "Signature Version 4 signing process" specifies it:
// the canonical request, the string to sign, the derived signing key
// (HMAC-SHA256 chain over date, region, service and "aws4_request") and the
// signature. Pure: the caller passes the time. Checked against AWS's
// published examples (tests/unit/publish/test_sigv4.cpp).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sf::publish {

// Credentials as a value whose secret parts never print.
struct AwsCredentials {
    std::string access_key_id;
    std::string secret_access_key;  // never printed
    std::string session_token;      // never printed; "" when none
    std::vector<std::string> secrets() const { return {secret_access_key, session_token}; }
};

struct SigV4Request {
    std::string method;  // "PUT"
    std::string path;    // not yet encoded: "/bucket/linux-64/a b.conda"
    std::vector<std::pair<std::string, std::string>> query;  // not yet encoded
    // Every header to sign, host and x-amz-date among them.
    std::vector<std::pair<std::string, std::string>> headers;
    std::string payload_sha256;  // hex, or "UNSIGNED-PAYLOAD"
    std::string amz_date;        // "20130524T000000Z"
    std::string region, service;
};

struct SigV4 {
    std::string canonical_request, string_to_sign, signature;
    std::string authorization;  // the Authorization header's value
};

// `service` "s3" encodes the path once, any other service twice (the
// signing process's rule); both encode every byte but A-Z a-z 0-9 - _ . ~
// (and '/' in the path).
SigV4 sign_v4(const SigV4Request& r, const AwsCredentials& c);

std::string uri_encode(std::string_view s, bool keep_slash);
std::string hmac_sha256(std::string_view key, std::string_view data);  // raw bytes
std::string to_hex(std::string_view bytes);

// "YYYYMMDDTHHMMSSZ" for a time in seconds since the epoch.
std::string amz_date(long long epoch_seconds);

}  // namespace sf::publish
