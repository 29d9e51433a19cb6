#pragma once
// HTTP(S) requests beyond http.hpp's GETs, for uploads: GET, HEAD, PUT and
// DELETE with the caller's headers, a body from memory or from a file, and
// every answer header kept. Nothing conda-specific. Redirects are not
// followed (a 3xx is an answer for the caller: an upload never goes to
// another host), timeouts, cut answers and 5xx are tried again as http.hpp
// does ($CONDA_REMOTE_MAX_RETRIES), only http and https are spoken, TLS peers
// are verified, and every error names the URL masked (url.hpp) with the
// caller's `secrets` masked too.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace sf::net {

enum class Method { get, head, put, del };

std::string_view method_name(Method m);

struct Send {
    Method method = Method::get;
    std::string url;  // credentials in it are used for basic auth and masked everywhere
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;                 // PUT: sent when body_file is empty
    std::filesystem::path body_file;  // PUT: this file instead
    std::uint64_t max_bytes = std::uint64_t{256} << 20;  // of the answer's body
    std::vector<std::string> secrets;  // values (tokens) masked in every message
};

struct Answer {
    long status = 0;
    std::map<std::string, std::string> headers;  // of the final answer, names lower case
    std::string body;
    std::string header(const std::string& lower_name) const {
        auto it = headers.find(lower_name);
        return it == headers.end() ? std::string() : it->second;
    }
};

// An error only when no whole HTTP answer came back; any status is an Answer.
Result<Answer> send(const Send& s);

// `text` with every secret replaced by <SECRET> and its URLs masked.
std::string mask_secrets(std::string_view text, const std::vector<std::string>& secrets);

}  // namespace sf::net
