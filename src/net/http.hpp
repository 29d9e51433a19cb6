#pragma once
// HTTP(S) GETs on libcurl: a body into memory or into an open file, with
// the caching headers a client needs to revalidate. Nothing conda-specific
// but the secrets url.hpp masks: every error names the URL masked.
//
// Transfers follow net::transport() (transport.hpp: TLS, proxies, netrc,
// rattler's auth file, retries, timeouts) and are bounded: redirects (10),
// the body's size (the caller's max_bytes, checked on Content-Length and on
// the bytes received), connect time (remote_connect_timeout_secs, 30 s) and
// a stalled transfer (under 1 byte/s for remote_read_timeout_secs, 60 s). A
// timeout, a connection cut mid-answer or a 5xx is tried again, at most
// remote_max_retries (3) more times with a doubling wait from 0.25 s;
// a body over max_bytes never is. Only http and
// https are spoken, also after a redirect; credentials in the URL are sent to
// its own host only (never to a redirect target on another host, curl's
// default); TLS peers are verified.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace sf::net {

struct Request {
    std::string url;  // with its credentials; never printed as such
    std::vector<std::pair<std::string, std::string>> headers;  // e.g. {"If-None-Match", etag}
    std::uint64_t max_bytes = std::uint64_t{2} << 30;
};

struct Response {
    long status = 0;  // 200, 304, 404, ...
    std::string etag, last_modified, cache_control;
    std::string body;  // get() only
    std::uint64_t bytes = 0;  // body bytes received
};

// A status line worth one message: "HTTP 404 (not found)".
std::string status_text(long status);

// The body into memory. An error only when no HTTP answer came back whole
// (connection refused, timeout, a body over max_bytes, TLS); any status is a
// Response, for the caller to judge.
Result<Response> get(const Request& r);
// The body of a 2xx answer written to `fd` (other answers' bodies are kept
// in Response::body, for their message).
Result<Response> get_to_fd(const Request& r, int fd);

// One of many transfers: the body into memory (fd -1, Response::body) or,
// for a 2xx answer, into `fd`.
struct Transfer {
    Request request;
    int fd = -1;
};

struct Progress {
    std::size_t done = 0, total = 0;  // transfers finished (either way), all of them
    std::uint64_t bytes = 0;          // body bytes received so far, all transfers
};
using OnProgress = std::function<void(const Progress&)>;

// All of `transfers` on one libcurl multi handle, at most `parallel` at a
// time (HTTP/2 multiplexed where the server offers it), each one tried
// again as get() tries; one result per transfer, in order. `on_progress`
// is called at most ten times a second, and once at the end.
std::vector<Result<Response>> get_all(const std::vector<Transfer>& transfers, int parallel = 8,
                                      const OnProgress& on_progress = {});

}  // namespace sf::net
