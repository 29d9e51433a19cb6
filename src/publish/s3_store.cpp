// An S3 bucket as a Store: each request signed with SigV4 (sigv4.hpp),
// path-style (ENDPOINT/BUCKET/KEY) for a custom endpoint, else AWS's
// virtual-hosted https://BUCKET.s3.REGION.amazonaws.com/KEY.
#include <ctime>

#include "net/send.hpp"
#include "net/url.hpp"
#include "publish/store.hpp"
#include "util/hash.hpp"

namespace sf::publish {

namespace {

class S3Store : public Store {
public:
    S3Store(S3Place place, AwsSetup setup) : place_(std::move(place)), setup_(std::move(setup)) {
        if (setup_.endpoint.empty()) {
            host_ = place_.bucket + ".s3." + setup_.region + ".amazonaws.com";
            base_ = "https://" + host_;
            path_root_ = "";
        } else {
            base_ = setup_.endpoint;
            const auto start = base_.find("://") + 3;
            host_ = base_.substr(start, base_.find('/', start) - start);
            path_root_ = "/" + place_.bucket;
        }
    }

    std::string shown(const std::string& key) const override {
        return "s3://" + place_.bucket + "/" + full_key(key);
    }

    Result<std::optional<RemoteObject>> head(const std::string& key) override {
        auto a = request(net::Method::head, key, {}, {}, {});
        if (!a) return unexpected(a.error());
        if (a->status == 404) return std::optional<RemoteObject>{};
        if (a->status != 200) return refused(key, "HEAD", *a);
        RemoteObject o;
        o.size = std::strtoull(a->header("content-length").c_str(), nullptr, 10);
        o.sha256 = a->header("x-amz-meta-sha256");
        std::string etag = a->header("etag");
        if (etag.size() == 34 && etag.front() == '"') o.md5 = etag.substr(1, 32);
        return std::optional<RemoteObject>{o};
    }

    Result<std::optional<std::string>> get(const std::string& key, std::uint64_t max_bytes) override {
        auto a = request(net::Method::get, key, {}, {}, {}, max_bytes);
        if (!a) return unexpected(a.error());
        if (a->status == 404) return std::optional<std::string>{};
        if (a->status != 200) return refused(key, "GET", *a);
        return std::optional<std::string>{std::move(a->body)};
    }

    Result<void> put_file(const std::string& key, const std::filesystem::path& file, const std::string& sha256) override {
        auto a = request(net::Method::put, key, file, {}, sha256, 1u << 20, "application/octet-stream");
        if (!a) return unexpected(a.error());
        if (a->status != 200) return refused(key, "PUT", *a);
        return {};
    }

    Result<void> put_bytes(const std::string& key, const std::string& bytes, const std::string& type) override {
        auto a = request(net::Method::put, key, {}, bytes, hash::sha256(bytes), 1u << 20, type);
        if (!a) return unexpected(a.error());
        if (a->status != 200) return refused(key, "PUT", *a);
        return {};
    }

private:
    std::string full_key(const std::string& key) const { return place_.prefix.empty() ? key : place_.prefix + "/" + key; }

    Result<net::Answer> request(net::Method m, const std::string& key, const std::filesystem::path& file,
                                const std::string& bytes, std::string sha256, std::uint64_t max_bytes = 1u << 20,
                                const std::string& type = {}) {
        const std::string path = path_root_ + "/" + full_key(key);
        const std::string payload = m == net::Method::put ? sha256 : hash::sha256("");
        SigV4Request r;
        r.method = std::string(net::method_name(m));
        r.path = path;
        r.amz_date = amz_date(static_cast<long long>(std::time(nullptr)));
        r.headers = {{"host", host_}, {"x-amz-date", r.amz_date}, {"x-amz-content-sha256", payload}};
        if (m == net::Method::put) {
            r.headers.push_back({"x-amz-meta-sha256", sha256});
            if (!type.empty()) r.headers.push_back({"content-type", type});
        }
        if (!setup_.credentials.session_token.empty())
            r.headers.push_back({"x-amz-security-token", setup_.credentials.session_token});
        r.payload_sha256 = payload;
        r.region = setup_.region;
        r.service = "s3";
        const SigV4 sig = sign_v4(r, setup_.credentials);
        net::Send s;
        s.method = m;
        s.url = base_ + uri_encode(path, true);
        s.body_file = file;
        s.body = bytes;
        s.max_bytes = max_bytes;
        s.secrets = setup_.credentials.secrets();
        for (const auto& h : r.headers)
            if (h.first != "host") s.headers.push_back(h);
        s.headers.push_back({"Authorization", sig.authorization});
        auto a = net::send(s);
        if (!a) a.error().loc = SourceLoc{shown(key)};
        return a;
    }

    Unexpected<Error> refused(const std::string& key, const char* what, const net::Answer& a) const {
        return fail_runtime(SourceLoc{shown(key)},
                            std::string(what) + " refused: " + answer_text(a.status, a.body, setup_.credentials.secrets()),
                            a.status == 403 ? "check the AWS credentials, region and the bucket's policy"
                                            : "check the bucket name and the endpoint (AWS_ENDPOINT_URL)");
    }

    S3Place place_;
    AwsSetup setup_;
    std::string host_, base_, path_root_;
};

// The text of <Tag>...</Tag> in an S3 error document.
std::string xml_field(const std::string& body, const std::string& tag) {
    const auto a = body.find("<" + tag + ">");
    if (a == std::string::npos) return {};
    const auto start = a + tag.size() + 2;
    const auto b = body.find("</" + tag + ">", start);
    return b == std::string::npos ? std::string() : body.substr(start, std::min<std::size_t>(b - start, 200));
}

}  // namespace

std::string answer_text(long status, const std::string& body, const std::vector<std::string>& secrets) {
    std::string out = "HTTP " + std::to_string(status);
    const std::string code = xml_field(body, "Code"), msg = xml_field(body, "Message");
    if (!code.empty()) out += " " + code;
    if (!msg.empty()) out += ": " + msg;
    return net::mask_secrets(out, secrets);
}

std::unique_ptr<Store> s3_store(const S3Place& place, AwsSetup setup) {
    return std::make_unique<S3Store>(place, std::move(setup));
}

}  // namespace sf::publish
