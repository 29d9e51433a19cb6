#pragma once
// HTTP(S) requests beyond http.hpp's GETs, for uploads: GET, HEAD, PUT,
// DELETE and POST with the caller's headers, a body from memory or from a
// file, or a multipart/form-data body (parts in the caller's order), and
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

enum class Method { get, head, put, del, post };

std::string_view method_name(Method m);

// One part of a multipart/form-data body: a text field (`value`) or a file
// (`file`, streamed from disk), with its own extra headers.
struct FormPart {
    std::string name;
    std::string value;              // a field's text, when `file` is empty
    std::filesystem::path file;     // a file part's bytes
    std::string filename;           // the file part's filename="..." (default: the file's name)
    std::string content_type;       // "" for none (curl: application/octet-stream for a file)
    std::vector<std::pair<std::string, std::string>> headers;
};

struct Send {
    Method method = Method::get;
    std::string url;  // credentials in it are used for basic auth and masked everywhere
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;                 // PUT, POST: sent when body_file and form are empty
    std::filesystem::path body_file;  // PUT, POST: this file instead
    std::vector<FormPart> form;       // POST: a multipart/form-data body instead
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
