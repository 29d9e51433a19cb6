#include "net/http.hpp"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "net/curl_easy.hpp"
#include "net/transport.hpp"
#include "net/url.hpp"

namespace sf::net {
namespace {

using detail::Easy;
using detail::global_init;
using detail::transient;

// What the write callback needs: where the body goes and its budget.
struct Sink {
    Response* resp;
    std::uint64_t max_bytes;
    int fd = -1;  // -1: into resp->body
    bool too_big = false;
    int write_errno = 0;
    CURL* h;
};

std::size_t on_body(char* data, std::size_t, std::size_t n, void* p) {
    auto* s = static_cast<Sink*>(p);
    long code = 0;
    curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &code);
    if (s->resp->bytes + n > s->max_bytes) {
        s->too_big = true;
        return 0;  // aborts the transfer
    }
    s->resp->bytes += n;
    if (s->fd < 0 || code < 200 || code >= 300) {
        if (s->fd < 0 && s->resp->body.empty()) {  // sized once from Content-Length, not grown by doubling
            curl_off_t len = -1;
            if (curl_easy_getinfo(s->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len) == CURLE_OK && len > 0 &&
                static_cast<std::uint64_t>(len) <= s->max_bytes)
                s->resp->body.reserve(static_cast<std::size_t>(len));
        }
        if (s->fd < 0) s->resp->body.append(data, n);
        return n;
    }
    std::size_t done = 0;
    while (done < n) {
        ssize_t w = ::write(s->fd, data + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            s->write_errno = errno;
            return 0;
        }
        done += static_cast<std::size_t>(w);
    }
    return n;
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Keeps the caching headers of the final answer (a redirect's are reset by
// the status line that follows it).
std::size_t on_header(char* data, std::size_t, std::size_t n, void* p) {
    auto* resp = static_cast<Response*>(p);
    std::string line(data, n);
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
    if (line.rfind("HTTP/", 0) == 0) {
        resp->etag.clear();
        resp->last_modified.clear();
        resp->cache_control.clear();
        return n;
    }
    auto colon = line.find(':');
    if (colon == std::string::npos) return n;
    std::string key = lower(line.substr(0, colon));
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (key == "etag") resp->etag = value;
    else if (key == "last-modified") resp->last_modified = value;
    else if (key == "cache-control") resp->cache_control = value;
    return n;
}

// TLS, proxy and credentials for one transfer of `url` (which a conda
// token from the auth file is put into). Credentials from ~/.netrc or the
// auth file go to that host only: libcurl drops them on a redirect to
// another host (CURLOPT_UNRESTRICTED_AUTH off), netrc's are looked up per
// host, and a bearer token is curl's own credential, not a raw header.
Result<void> apply_transport(CURL* h, std::string& url) {
    const Transport& t = transport();
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, t.ssl_verify ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, t.ssl_verify ? 2L : 0L);
    if (!t.ca_bundle.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, t.ca_bundle.c_str());
    if (auto proxy = proxy_for(t, url)) curl_easy_setopt(h, CURLOPT_PROXY, proxy->c_str());
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, t.connect_timeout_s);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, t.read_timeout_s);
    curl_easy_setopt(h, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
    if (!t.netrc_file.empty()) curl_easy_setopt(h, CURLOPT_NETRC_FILE, t.netrc_file.c_str());
    const std::string host = host_of(url);
    const bool has_userinfo = url.find('@') != std::string::npos && url.find('@') < url.find('/', url.find("://") + 3);
    if (t.auth_file.empty() || has_userinfo) return {};
    auto cred = credential_for(t.auth_file, host);
    if (!cred) return Unexpected<Error>{cred.error()};
    if (!*cred) return {};
    const Credential& c = **cred;
    if (c.kind == Credential::Kind::basic) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERNAME, c.username.c_str());
        curl_easy_setopt(h, CURLOPT_PASSWORD, c.password.c_str());
    } else if (c.kind == Credential::Kind::bearer) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
        curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, c.token.c_str());
    } else if (url.find("/t/") == std::string::npos) {
        // rattler puts a CondaToken in front of the URL's path.
        std::size_t path = url.find('/', url.find("://") + 3);
        url.insert(path == std::string::npos ? url.size() : path, "/t/" + c.token);
    }
    return {};
}

// One transfer's state: the handle and what its callbacks fill. Not movable:
// the callbacks hold pointers into it.
struct Job {
    Easy e;
    Response resp;
    Sink sink{&resp, 0, -1, false, 0, nullptr};
    char errbuf[CURL_ERROR_SIZE] = {0};
};

Result<void> setup(Job& j, const Request& r, int fd) {
    CURL* h = j.e.h;
    j.sink = Sink{&j.resp, r.max_bytes, fd, false, 0, h};
    std::string url = r.url;
    if (auto t = apply_transport(h, url); !t) return t;
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(h, CURLOPT_UNRESTRICTED_AUTH, 0L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "splitforge");
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, j.errbuf);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &j.sink);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &j.resp);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(r.max_bytes));
    // Many transfers to one HTTP/2 server share its connection.
    curl_easy_setopt(h, CURLOPT_PIPEWAIT, 1L);
    for (const auto& [k, v] : r.headers) j.e.headers = curl_slist_append(j.e.headers, (k + ": " + v).c_str());
    if (j.e.headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, j.e.headers);
    return {};
}

// What a finished transfer comes to; *retry says whether another try may help.
Result<Response> finish(Job& j, const Request& r, CURLcode rc, bool* retry) {
    curl_easy_getinfo(j.e.h, CURLINFO_RESPONSE_CODE, &j.resp.status);
    if (retry) *retry = !j.sink.too_big && transient(rc, j.resp.status);
    const std::string where = mask(r.url);
    if (j.sink.too_big || rc == CURLE_FILESIZE_EXCEEDED)
        return fail(SourceLoc{where}, "the answer is larger than the limit of " + std::to_string(r.max_bytes) + " bytes",
                    "the server sends something other than a conda channel's file");
    if (j.sink.write_errno)
        return fail_runtime(SourceLoc{where}, std::string("cannot write the download: ") + std::strerror(j.sink.write_errno));
    if (rc != CURLE_OK) {
        std::string why = j.errbuf[0] ? j.errbuf : curl_easy_strerror(rc);
        while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
        return fail_runtime(SourceLoc{where}, "download failed: " + mask_text(why),
                            "check the URL, the network and that the server is up");
    }
    return std::move(j.resp);
}

Result<Response> perform(const Request& r, int fd, bool* retry) {
    global_init();
    Job j;
    if (!j.e.h) return fail_runtime({}, "cannot start an HTTP transfer (curl_easy_init failed)");
    if (auto s = setup(j, r, fd); !s) return Unexpected<Error>{s.error()};
    return finish(j, r, curl_easy_perform(j.e.h), retry);
}

}  // namespace

std::string status_text(long status) {
    const char* what = status == 401   ? "unauthorized: the channel needs credentials"
                       : status == 403 ? "forbidden: the credentials are missing or wrong"
                       : status == 404 ? "not found"
                       : status >= 500 ? "server error"
                                       : "unexpected answer";
    return "HTTP " + std::to_string(status) + " (" + what + ")";
}

namespace {

// perform() again while the failure is transient, at most
// transport().max_retries (conda's remote_max_retries, default 3) more
// times, waiting 0.25 s, 0.5 s, 1 s, ... between tries. A file body starts
// over each try.
Result<Response> with_retries(const Request& r, int fd) {
    const long retries = transport().max_retries;
    for (long attempt = 0;; ++attempt) {
        bool retry = false;
        auto got = perform(r, fd, &retry);
        if (!retry || attempt >= retries) {
            if (attempt > 0 && !got) got.error().message += " (after " + std::to_string(attempt + 1) + " tries)";
            return got;
        }
        if (fd >= 0 && (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0))
            return fail_runtime(SourceLoc{mask(r.url)}, std::string("cannot restart the download: ") + std::strerror(errno));
        std::this_thread::sleep_for(std::chrono::milliseconds(250L << std::min<long>(attempt, 4)));
    }
}

}  // namespace

Result<Response> get(const Request& r) { return with_retries(r, -1); }
Result<Response> get_to_fd(const Request& r, int fd) { return with_retries(r, fd); }

namespace {

using Clock = std::chrono::steady_clock;

// The transfers of one get_all(): which run, which wait out a backoff.
class Multi {
public:
    Multi(const std::vector<Transfer>& ts, int parallel, const OnProgress& on_progress)
        : ts_(ts), parallel_(std::max(1, parallel)), on_progress_(on_progress), out_(ts.size()) {
        retries_ = transport().max_retries;
        for (std::size_t i = 0; i < ts.size(); ++i) ready_.push_back({i, 0});
    }
    ~Multi() {
        for (auto& [h, run] : running_) curl_multi_remove_handle(m_, h);
        running_.clear();
        if (m_) curl_multi_cleanup(m_);
    }
    std::vector<Result<Response>> run() {
        if (!m_) return all_failed("cannot start HTTP transfers (curl_multi_init failed)");
        while (done_ < ts_.size()) {
            start_due();
            int still = 0;
            curl_multi_perform(m_, &still);
            reap();
            report(false);
            if (done_ < ts_.size()) curl_multi_poll(m_, nullptr, 0, poll_ms(), nullptr);
        }
        report(true);
        std::vector<Result<Response>> out;
        out.reserve(out_.size());
        for (auto& o : out_) out.push_back(std::move(*o));
        return out;
    }

private:
    struct Try {
        std::size_t index;
        long attempt;
        Clock::time_point not_before{};
    };
    struct Running {
        Try t;
        std::unique_ptr<Job> job;
    };

    std::vector<Result<Response>> all_failed(const std::string& why) {
        std::vector<Result<Response>> out;
        for (std::size_t i = 0; i < ts_.size(); ++i) out.push_back(fail_runtime({}, why));
        return out;
    }
    void settle(std::size_t i, Result<Response> r) {
        out_[i] = std::move(r);
        ++done_;
        if (*out_[i]) bytes_done_ += (*out_[i])->bytes;
    }
    void start_due() {
        const auto now = Clock::now();
        for (auto it = ready_.begin(); it != ready_.end() && static_cast<int>(running_.size()) < parallel_;) {
            if (it->not_before > now) {
                ++it;
                continue;
            }
            start(*it);
            it = ready_.erase(it);
        }
    }
    void start(const Try& t) {
        const Transfer& tr = ts_[t.index];
        // A file body starts over on each try.
        if (tr.fd >= 0 && t.attempt > 0 && (::ftruncate(tr.fd, 0) != 0 || ::lseek(tr.fd, 0, SEEK_SET) != 0))
            return settle(t.index, fail_runtime(SourceLoc{mask(tr.request.url)},
                                                std::string("cannot restart the download: ") + std::strerror(errno)));
        auto job = std::make_unique<Job>();
        if (!job->e.h) return settle(t.index, fail_runtime({}, "cannot start an HTTP transfer (curl_easy_init failed)"));
        if (auto s = setup(*job, tr.request, tr.fd); !s) return settle(t.index, Unexpected<Error>{s.error()});
        CURL* h = job->e.h;
        curl_multi_add_handle(m_, h);
        running_.emplace(h, Running{t, std::move(job)});
    }
    void reap() {
        int left = 0;
        while (CURLMsg* msg = curl_multi_info_read(m_, &left)) {
            if (msg->msg != CURLMSG_DONE) continue;
            auto it = running_.find(msg->easy_handle);
            if (it == running_.end()) continue;
            curl_multi_remove_handle(m_, msg->easy_handle);
            Running run = std::move(it->second);
            running_.erase(it);
            bool retry = false;
            auto got = finish(*run.job, ts_[run.t.index].request, msg->data.result, &retry);
            if (retry && run.t.attempt < retries_) {
                auto wait = std::chrono::milliseconds(250L << std::min<long>(run.t.attempt, 4));
                ready_.push_back({run.t.index, run.t.attempt + 1, Clock::now() + wait});
                continue;
            }
            if (run.t.attempt > 0 && !got) got.error().message += " (after " + std::to_string(run.t.attempt + 1) + " tries)";
            settle(run.t.index, std::move(got));
        }
    }
    long poll_ms() const {
        long ms = 100;
        const auto now = Clock::now();
        for (const auto& t : ready_) {
            auto d = std::chrono::duration_cast<std::chrono::milliseconds>(t.not_before - now).count();
            ms = std::min<long>(ms, std::max<long>(0, static_cast<long>(d)));
        }
        return ms;
    }
    // At most ten times a second, and once at the end.
    void report(bool last) {
        if (!on_progress_) return;
        const auto now = Clock::now();
        if (!last && now - last_report_ < std::chrono::milliseconds(100)) return;
        last_report_ = now;
        std::uint64_t bytes = bytes_done_;
        for (const auto& [h, run] : running_) bytes += run.job->resp.bytes;
        on_progress_(Progress{done_, ts_.size(), bytes});
    }

    const std::vector<Transfer>& ts_;
    int parallel_;
    const OnProgress& on_progress_;
    long retries_ = 3;
    CURLM* m_ = (global_init(), curl_multi_init());
    std::vector<std::optional<Result<Response>>> out_;
    std::list<Try> ready_;
    std::map<CURL*, Running> running_;
    std::size_t done_ = 0;
    std::uint64_t bytes_done_ = 0;
    Clock::time_point last_report_{};
};

}  // namespace

std::vector<Result<Response>> get_all(const std::vector<Transfer>& transfers, int parallel, const OnProgress& on_progress) {
    if (transfers.empty()) return {};
    return Multi(transfers, parallel, on_progress).run();
}

}  // namespace sf::net
