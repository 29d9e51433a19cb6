#include "publish/sigv4.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "util/hash.hpp"

namespace sf::publish {

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// A header value as the canonical form wants it: trimmed, inner runs of
// spaces as one.
std::string canonical_value(const std::string& v) {
    std::string out;
    bool space = false;
    for (char c : v) {
        if (c == ' ' || c == '\t') {
            space = !out.empty();
            continue;
        }
        if (space) out += ' ';
        space = false;
        out += c;
    }
    return out;
}

std::string canonical_query(std::vector<std::pair<std::string, std::string>> q) {
    for (auto& [k, v] : q) {
        k = uri_encode(k, false);
        v = uri_encode(v, false);
    }
    std::sort(q.begin(), q.end());
    std::string out;
    for (const auto& [k, v] : q) out += (out.empty() ? "" : "&") + k + "=" + v;
    return out;
}

}  // namespace

std::string uri_encode(std::string_view s, bool keep_slash) {
    static const char* hexd = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/'))
            out += static_cast<char>(c);
        else
            out += {'%', hexd[c >> 4], hexd[c & 15]};
    }
    return out;
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
         data.size(), out, &n);
    return std::string(reinterpret_cast<char*>(out), n);
}

std::string to_hex(std::string_view bytes) {
    static const char* hexd = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) out += {hexd[c >> 4], hexd[c & 15]};
    return out;
}

std::string amz_date(long long epoch_seconds) {
    std::time_t t = static_cast<std::time_t>(epoch_seconds);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

SigV4 sign_v4(const SigV4Request& r, const AwsCredentials& c) {
    std::vector<std::pair<std::string, std::string>> headers;
    for (const auto& [k, v] : r.headers) headers.emplace_back(lower(k), canonical_value(v));
    std::sort(headers.begin(), headers.end());
    std::string canonical_headers, signed_headers;
    for (const auto& [k, v] : headers) {
        canonical_headers += k + ":" + v + "\n";
        signed_headers += (signed_headers.empty() ? "" : ";") + k;
    }
    std::string path = uri_encode(r.path.empty() ? "/" : r.path, true);
    if (r.service != "s3") path = uri_encode(path, true);
    SigV4 out;
    out.canonical_request = r.method + "\n" + path + "\n" + canonical_query(r.query) + "\n" + canonical_headers + "\n" +
                            signed_headers + "\n" + r.payload_sha256;
    const std::string day = r.amz_date.substr(0, 8);
    const std::string scope = day + "/" + r.region + "/" + r.service + "/aws4_request";
    out.string_to_sign = "AWS4-HMAC-SHA256\n" + r.amz_date + "\n" + scope + "\n" + hash::sha256(out.canonical_request);
    std::string key = hmac_sha256("AWS4" + c.secret_access_key, day);
    key = hmac_sha256(key, r.region);
    key = hmac_sha256(key, r.service);
    key = hmac_sha256(key, "aws4_request");
    out.signature = to_hex(hmac_sha256(key, out.string_to_sign));
    out.authorization = "AWS4-HMAC-SHA256 Credential=" + c.access_key_id + "/" + scope +
                        ", SignedHeaders=" + signed_headers + ", Signature=" + out.signature;
    return out;
}

}  // namespace sf::publish
