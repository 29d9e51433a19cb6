#include "net/send.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "net/curl_easy.hpp"
#include "net/transport.hpp"
#include "net/url.hpp"

namespace sf::net {

namespace {

using detail::Easy;
using detail::transient;

struct Sink {
    Answer* answer;
    std::uint64_t max_bytes;
    bool too_big = false;
};

std::size_t on_body(char* data, std::size_t, std::size_t n, void* p) {
    auto* s = static_cast<Sink*>(p);
    if (s->answer->body.size() + n > s->max_bytes) {
        s->too_big = true;
        return 0;
    }
    s->answer->body.append(data, n);
    return n;
}

std::size_t on_header(char* data, std::size_t, std::size_t n, void* p) {
    auto* a = static_cast<Answer*>(p);
    std::string line(data, n);
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
    if (line.rfind("HTTP/", 0) == 0) {  // a 100 Continue's headers are dropped
        a->headers.clear();
        return n;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos) return n;
    std::string key = line.substr(0, colon), value = line.substr(colon + 1);
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    value.erase(0, value.find_first_not_of(" \t"));
    a->headers[key] = value;
    return n;
}

// The upload body: a file's descriptor, or bytes in memory.
struct Body {
    int fd = -1;
    const std::string* mem = nullptr;
    std::size_t off = 0;
};

std::size_t on_read(char* buf, std::size_t size, std::size_t n, void* p) {
    auto* b = static_cast<Body*>(p);
    if (b->fd < 0) {
        const std::size_t k = std::min(size * n, b->mem->size() - b->off);
        std::memcpy(buf, b->mem->data() + b->off, k);
        b->off += k;
        return k;
    }
    ssize_t got;
    do got = ::read(b->fd, buf, size * n);
    while (got < 0 && errno == EINTR);
    return got < 0 ? CURL_READFUNC_ABORT : static_cast<std::size_t>(got);
}

bool has_body(const Send& s) { return s.method == Method::put || (s.method == Method::post && s.form.empty()); }

void set_method(CURL* h, const Send& s, curl_off_t size) {
    switch (s.method) {
        case Method::get: break;
        case Method::head: curl_easy_setopt(h, CURLOPT_NOBODY, 1L); break;
        case Method::del: curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE"); break;
        case Method::put:
            curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
            curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, size);
            break;
        case Method::post:  // a form is set by set_form; a body is read as PUT's is
            if (!s.form.empty()) break;
            curl_easy_setopt(h, CURLOPT_POST, 1L);
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, size);
            break;
    }
}

struct MimeFree {
    void operator()(curl_mime* m) const { curl_mime_free(m); }
};
using Mime = std::unique_ptr<curl_mime, MimeFree>;

// The multipart body, its parts in the caller's order; curl reads a file
// part from disk as it sends (again on each try).
Result<Mime> set_form(CURL* h, const Send& s) {
    Mime mime(curl_mime_init(h));
    if (!mime) return fail_runtime({}, "cannot build a multipart form (curl_mime_init failed)");
    for (const auto& p : s.form) {
        curl_mimepart* part = curl_mime_addpart(mime.get());
        curl_mime_name(part, p.name.c_str());
        if (p.file.empty()) {
            curl_mime_data(part, p.value.data(), p.value.size());
        } else {
            if (::access(p.file.c_str(), R_OK) != 0)
                return fail_runtime(SourceLoc{p.file.string()}, std::string("cannot read: ") + std::strerror(errno));
            curl_mime_filedata(part, p.file.c_str());
            if (!p.filename.empty()) curl_mime_filename(part, p.filename.c_str());
        }
        if (!p.content_type.empty()) curl_mime_type(part, p.content_type.c_str());
        curl_slist* hs = nullptr;
        for (const auto& [k, v] : p.headers) hs = curl_slist_append(hs, (k + ": " + v).c_str());
        if (hs) curl_mime_headers(part, hs, 1);  // the part owns the list
    }
    curl_easy_setopt(h, CURLOPT_MIMEPOST, mime.get());
    return mime;
}

Result<Answer> perform(const Send& s, bool* retry) {
    const std::string where = mask_secrets(s.url, s.secrets);
    Easy e;
    if (!e.h) return fail_runtime({}, "cannot start an HTTP transfer (curl_easy_init failed)");
    // The body: the file, opened afresh each try, or the memory buffer.
    int fd = -1;
    curl_off_t size = static_cast<curl_off_t>(s.body.size());
    if (has_body(s) && !s.body_file.empty()) {
        fd = ::open(s.body_file.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return fail_runtime(SourceLoc{s.body_file.string()}, std::string("cannot read: ") + std::strerror(errno));
        size = static_cast<curl_off_t>(::lseek(fd, 0, SEEK_END));
        ::lseek(fd, 0, SEEK_SET);
    }
    struct Closer {
        int fd;
        ~Closer() {
            if (fd >= 0) ::close(fd);
        }
    } closer{fd};
    Body body{fd, &s.body, 0};
    Answer a;
    Sink sink{&a, s.max_bytes};
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(e.h, CURLOPT_URL, s.url.c_str());
    curl_easy_setopt(e.h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e.h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e.h, CURLOPT_CONNECTTIMEOUT, transport().connect_timeout_s);
    curl_easy_setopt(e.h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e.h, CURLOPT_LOW_SPEED_TIME, transport().read_timeout_s);
    curl_easy_setopt(e.h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e.h, CURLOPT_USERAGENT, "splitforge");
    curl_easy_setopt(e.h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(e.h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e.h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(e.h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e.h, CURLOPT_HEADERDATA, &a);
    set_method(e.h, s, size);
    Mime mime;
    if (s.method == Method::post && !s.form.empty()) {
        auto m = set_form(e.h, s);
        if (!m) return unexpected(m.error());
        mime = std::move(*m);
    }
    if (has_body(s)) {
        curl_easy_setopt(e.h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(e.h, CURLOPT_READDATA, &body);
    }
    for (const auto& [k, v] : s.headers) e.headers = curl_slist_append(e.headers, (k + ": " + v).c_str());
    // S3 and WebDAV servers answer at once; curl's 1 s wait for 100 Continue only slows each PUT.
    e.headers = curl_slist_append(e.headers, "Expect:");
    curl_easy_setopt(e.h, CURLOPT_HTTPHEADER, e.headers);
    CURLcode rc = curl_easy_perform(e.h);
    curl_easy_getinfo(e.h, CURLINFO_RESPONSE_CODE, &a.status);
    if (retry) *retry = !sink.too_big && transient(rc, a.status);
    if (sink.too_big)
        return fail(SourceLoc{where}, "the answer is larger than the limit of " + std::to_string(s.max_bytes) + " bytes");
    if (rc != CURLE_OK) {
        std::string why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
        while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
        return fail_runtime(SourceLoc{where}, std::string(method_name(s.method)) + " failed: " + mask_secrets(why, s.secrets),
                            "check the URL, the network and that the server is up");
    }
    return a;
}

}  // namespace

std::string_view method_name(Method m) {
    switch (m) {
        case Method::get: return "GET";
        case Method::head: return "HEAD";
        case Method::put: return "PUT";
        case Method::del: return "DELETE";
        case Method::post: return "POST";
    }
    return "?";
}

std::string mask_secrets(std::string_view text, const std::vector<std::string>& secrets) {
    std::string out = mask_text(text);
    for (const auto& s : secrets) {
        if (s.empty()) continue;
        for (std::size_t at = out.find(s); at != std::string::npos; at = out.find(s, at + 8))
            out.replace(at, s.size(), "<SECRET>");
    }
    return out;
}

Result<Answer> send(const Send& s) {
    const long retries = transport().max_retries;
    for (long attempt = 0;; ++attempt) {
        bool retry = false;
        auto got = perform(s, &retry);
        if (!retry || attempt >= retries) {
            if (attempt > 0 && !got) got.error().message += " (after " + std::to_string(attempt + 1) + " tries)";
            return got;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250L << std::min<long>(attempt, 4)));
    }
}

}  // namespace sf::net
