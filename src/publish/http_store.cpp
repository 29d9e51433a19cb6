// A server that takes PUT as a Store (artifactory, any WebDAV server such as
// nginx's dav_methods PUT): keys below the base URL, Bearer or basic auth.
#include "net/send.hpp"
#include "net/url.hpp"
#include "publish/sigv4.hpp"
#include "publish/store.hpp"

namespace sf::publish {

namespace {

class HttpStore : public Store {
public:
    HttpStore(std::string base, std::string token) : base_(std::move(base)), token_(std::move(token)) {}

    std::string shown(const std::string& key) const override { return net::mask(url(key)); }

    Result<std::optional<RemoteObject>> head(const std::string& key) override {
        auto a = request(net::Method::head, key);
        if (!a) return unexpected(a.error());
        if (a->status == 404) return std::optional<RemoteObject>{};
        if (a->status != 200) return refused(key, "HEAD", *a);
        RemoteObject o;
        o.size = std::strtoull(a->header("content-length").c_str(), nullptr, 10);
        o.sha256 = a->header("x-checksum-sha256");  // artifactory's; a WebDAV server says none
        return std::optional<RemoteObject>{o};
    }

    Result<std::optional<std::string>> get(const std::string& key, std::uint64_t max_bytes) override {
        auto a = request(net::Method::get, key, {}, {}, max_bytes);
        if (!a) return unexpected(a.error());
        if (a->status == 404) return std::optional<std::string>{};
        if (a->status != 200) return refused(key, "GET", *a);
        return std::optional<std::string>{std::move(a->body)};
    }

    Result<void> put_file(const std::string& key, const std::filesystem::path& file, const std::string& sha256) override {
        auto a = request(net::Method::put, key, file, {}, 1u << 20, {{"X-Checksum-Sha256", sha256}});
        if (!a) return unexpected(a.error());
        if (a->status < 200 || a->status > 299) return refused(key, "PUT", *a);
        return {};
    }

    Result<void> put_bytes(const std::string& key, const std::string& bytes, const std::string& type) override {
        auto a = request(net::Method::put, key, {}, bytes, 1u << 20, {{"Content-Type", type}});
        if (!a) return unexpected(a.error());
        if (a->status < 200 || a->status > 299) return refused(key, "PUT", *a);
        return {};
    }

private:
    std::string url(const std::string& key) const { return base_ + "/" + uri_encode(key, true); }

    Result<net::Answer> request(net::Method m, const std::string& key, const std::filesystem::path& file = {},
                                const std::string& bytes = {}, std::uint64_t max_bytes = 1u << 20,
                                std::vector<std::pair<std::string, std::string>> headers = {}) {
        net::Send s;
        s.method = m;
        s.url = url(key);
        s.body_file = file;
        s.body = bytes;
        s.max_bytes = max_bytes;
        s.headers = std::move(headers);
        if (!token_.empty()) s.headers.push_back({"Authorization", "Bearer " + token_});
        s.secrets = {token_};
        return net::send(s);
    }

    Unexpected<Error> refused(const std::string& key, const char* what, const net::Answer& a) const {
        return fail_runtime(SourceLoc{shown(key)}, std::string(what) + " refused: " + answer_text(a.status, {}, {token_}),
                            a.status == 401 || a.status == 403 ? "check the token (--token, SPLITFORGE_UPLOAD_TOKEN) or the user and password in the URL"
                            : a.status == 405 ? "the server does not take PUT there (WebDAV: dav_methods PUT)"
                                              : "check the URL");
    }

    std::string base_, token_;
};

}  // namespace

std::unique_ptr<Store> http_store(const std::string& base_url, const std::string& token) {
    return std::make_unique<HttpStore>(base_url, token);
}

}  // namespace sf::publish
