// anaconda.org (or a self-hosted Anaconda server) as anaconda-client's
// `anaconda upload` speaks to it for a conda package (binstar_client:
// __init__.py's add_package, add_release, distribution, remove_dist and
// upload; commands/upload.py's order; inspect_package/conda.py's attrs):
//   GET  /dist/O/N/V/SUBDIR/FILE     per file, before anything is sent
//   DELETE the same                   --force, when its content differs
//   GET  /package/O/N, POST if 404    {public, publish, public_attrs}
//   GET  /release/O/N/V, POST if 404  {requirements, announce, description, ...}
//   POST /stage/O/N/V/SUBDIR/FILE     -> {post_url, form_data, dist_id}
//   POST post_url                     multipart: form_data, Content-Length,
//                                     Content-MD5, then the file (to S3:
//                                     no token, as anaconda-client sends none)
//   POST /commit/O/N/V/SUBDIR/FILE    {dist_id}
// Every API call carries "Authorization: token T" and JSON.
#include <nlohmann/json.hpp>

#include "archive/read.hpp"
#include "net/http.hpp"
#include "net/send.hpp"
#include "net/url.hpp"
#include "publish/services.hpp"
#include "publish/store.hpp"
#include "publish/sigv4.hpp"
#include "types/json_fields.hpp"
#include "util/strings.hpp"

namespace sf::publish::detail {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// anaconda-client's version, sent as it sends its own (x-binstar-api-version).
constexpr const char* kClientVersion = "1.12.3";

// One package file as anaconda-client reads it.
struct CondaFile {
    const Item* item = nullptr;
    std::string name, version, subdir, basename;  // basename: SUBDIR/FILE
    json index, about;
    bool has_prefix = false;
};

json field(const json& j, const char* key, json dflt = nullptr) {
    return j.is_object() && j.contains(key) ? j[key] : dflt;
}

// info/about.json ({} when absent) and whether info/has_prefix is there.
Result<CondaFile> read_conda_file(const Item& it) {
    CondaFile c{&it, it.record.value("name", ""), it.record.value("version", ""), it.record.value("subdir", ""), it.key,
                it.record, json::object(), false};
    for (const char* k : {"md5", "sha256", "size"}) c.index.erase(k);  // the repodata record's, not index.json's
    if (auto text = archive::read_package_member(it.file, "info/about.json")) {
        if (types::json_too_deep(*text)) return fail(SourceLoc{it.file.string()}, "info/about.json is nested too deep");
        try {
            c.about = json::parse(*text);
        } catch (const std::exception& e) {
            return fail(SourceLoc{it.file.string()}, std::string("info/about.json is not valid JSON: ") + e.what());
        }
    }
    c.has_prefix = archive::read_package_member(it.file, "info/has_prefix").has_value();
    return c;
}

// `anaconda package --create`'s body, as add_package builds it from the
// about.json fields inspect_conda_info_dir reads.
json package_payload(const CondaFile& c) {
    const json& a = c.about;
    json attrs = {{"name", c.name}, {"summary", field(a, "summary", "")}, {"description", field(a, "description", "")}};
    for (const char* k : {"dev_url", "doc_url", "home", "source_git_url", "license_url", "license_family"}) attrs[k] = field(a, k);
    attrs["package_types"] = json::array({"conda"});
    attrs["license"] = {{"name", field(a, "license")}, {"url", field(a, "license_url")}, {"family", field(a, "license_family")}};
    return {{"public", true}, {"publish", false}, {"public_attrs", attrs}};
}

json release_payload(const CondaFile& c) {
    const json& a = c.about;
    json p = {{"requirements", json::array()}, {"announce", nullptr}, {"version", c.version}, {"home_page", field(a, "home")},
              {"description", field(a, "description", "")}, {"summary", field(a, "summary", "")}, {"icon", field(c.index, "icon")}};
    for (const char* k : {"dev_url", "doc_url", "home", "source_git_url", "source_git_tag", "license", "license_url", "license_family"})
        p[k] = field(a, k);
    return p;
}

std::string py_str(const json& j) { return j.is_string() ? j.get<std::string>() : j.is_null() ? "None" : j.dump(); }

// transform_conda_deps: "name" or "name SPEC" (split at the first space, as
// it splits) as {name, specs: [[operator, version]]}, a trailing * dropped.
json dependencies(const json& index) {
    json deps = json::array();
    const json list = field(index, "depends", field(index, "requires", json::array()));
    for (const auto& d : list) {
        if (!d.is_string()) continue;
        const std::string dep(str::trim(d.get<std::string>()));
        const auto space = dep.find(' ');
        json specs = json::array();
        if (space != std::string::npos) {
            std::string spec = dep.substr(space + 1);
            if (str::ends_with(spec, "*")) spec.pop_back();
            const auto n = spec.find_first_not_of("=><");
            const std::size_t k = n == std::string::npos ? spec.size() : n;
            specs.push_back(json::array({k ? spec.substr(0, k) : "==", spec.substr(k)}));
        }
        deps.push_back({{"name", dep.substr(0, space)}, {"specs", specs}});
    }
    return {{"depends", deps}};
}

json stage_payload(const CondaFile& c, const std::string& label) {
    const json platform = field(c.index, "platform"), arch = field(c.index, "arch");
    json os = platform == "osx" ? json("darwin") : platform == "win" ? json("win32") : platform;
    json attrs = {{"operatingsystem", os}, {"machine", arch}, {"target-triplet", py_str(arch) + "-any-" + py_str(os)},
                  {"has_prefix", c.has_prefix}, {"subdir", c.subdir}};
    attrs.update(c.index);
    return {{"distribution_type", "conda"}, {"description", nullptr}, {"attrs", attrs}, {"dependencies", dependencies(c.index)},
            {"channels", json::array({label})}, {"sha256", c.item->sha256}};
}

std::string base64(const std::string& bytes) {
    static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
        std::uint32_t v = 0;
        for (std::size_t j = 0; j < 3; ++j) v = v << 8 | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0u);
        for (std::size_t j = 0; j < 4; ++j) out += j <= n ? k[(v >> (18 - 6 * j)) & 63] : '=';
    }
    return out;
}

// S3's Content-MD5: the digest's bytes in base64, not its hex.
std::string md5_base64(const std::string& hex) {
    std::string raw;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) raw += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return base64(raw);
}

struct Client {

    // Below the API: package/O/N, release/O/N/V and WHAT/O/N/V/SUBDIR/FILE.
    std::string package(const CondaFile& c) const { return "package/" + owner + "/" + c.name; }
    std::string release(const CondaFile& c) const { return "release/" + owner + "/" + c.name + "/" + c.version; }
    std::string file(const char* what, const CondaFile& c) const {
        return std::string(what) + "/" + owner + "/" + c.name + "/" + c.version + "/" + c.basename;
    }

    Result<net::Answer> call(net::Method m, const std::string& path, const json* body = nullptr) const {
        net::Send s;
        s.method = m;
        s.url = api.base + "/" + uri_encode(path, true);
        s.headers = {{"Authorization", "token " + api.token}, {"x-binstar-api-version", kClientVersion},
                     {"Accept", "application/json"}, {"Content-Type", "application/json"}};
        if (body) s.body = body->dump();
        s.secrets = {api.token};
        s.max_bytes = 16u << 20;
        return net::send(s);
    }

    Unexpected<Error> refused(const char* what, const std::string& path, const net::Answer& a) const {
        const bool auth = a.status == 401 || a.status == 403;
        return fail_runtime(SourceLoc{net::mask(api.base) + "/" + path},
                            std::string(what) + " refused: " + service_answer(a.status, a.body, api.token),
                            auth ? "check the token (--token, ANACONDA_API_TOKEN) and that it may upload to " + owner
                                 : "check the owner and the server (ANACONDA_SERVER_URL)");
    }

    // GET, then POST `payload` when the server has none (package, release).
    Result<void> ensure(const std::string& path, const json& payload) const {
        auto got = call(net::Method::get, path);
        if (!got) return unexpected(got.error());
        if (got->status == 200) return {};
        if (got->status != 404) return refused("GET", path, *got);
        auto made = call(net::Method::post, path, &payload);
        if (!made) return unexpected(made.error());
        if (made->status != 200 && made->status != 201) return refused("POST", path, *made);
        return {};
    }

    const Service& api;
    std::string owner;
};

// What the server holds under the file's name.
enum class Held { nothing, same, other };

Result<Held> held(const Client& cl, const CondaFile& c) {
    const std::string p = cl.file("dist", c);
    auto a = cl.call(net::Method::get, p);
    if (!a) return unexpected(a.error());
    if (a->status == 404) return Held::nothing;
    if (a->status != 200) return cl.refused("GET", p, *a);
    const json d = json::parse(a->body, nullptr, false);
    const json sha = field(d, "sha256", ""), md5 = field(d, "md5", "");
    // Its sha256, else (an older server) its md5; neither: not known to be ours.
    if (sha.is_string() && !sha.get<std::string>().empty()) return sha == c.item->sha256 ? Held::same : Held::other;
    return md5.is_string() && md5 == c.item->md5 ? Held::same : Held::other;
}

struct Staged {
    std::string post_url, dist_id;
    ordered_json form_data;  // in the server's order: S3 reads the policy's fields before the file
};

Result<Staged> parse_staged(const std::string& where, const std::string& body) {
    ordered_json j = ordered_json::parse(body, nullptr, false);
    if (!j.is_object() || !j.contains("post_url") || !j["post_url"].is_string() || !j.contains("dist_id") ||
        !j.contains("form_data") || !j["form_data"].is_object())
        return fail_runtime(SourceLoc{where}, "the stage answer is not {post_url, form_data, dist_id}",
                            "check the server (ANACONDA_SERVER_URL)");
    for (const auto& [k, v] : j["form_data"].items())
        if (!v.is_string()) return fail_runtime(SourceLoc{where}, "the stage answer's form_data." + k + " is not a string");
    const std::string id = j["dist_id"].is_string() ? j["dist_id"].get<std::string>() : j["dist_id"].dump();
    return Staged{j["post_url"].get<std::string>(), id, j["form_data"]};
}

// The form POST to the storage the stage answer names: its fields in order,
// the size and MD5 anaconda-client adds, then the file.
Result<void> post_form(const Staged& st, const CondaFile& c, const std::string& token) {
    net::Send s;
    s.method = net::Method::post;
    s.url = st.post_url;
    s.headers = {{"Accept", "application/json"}};
    for (const auto& [k, v] : st.form_data.items()) s.form.push_back({k, v.get<std::string>(), {}, {}, {}, {}});
    s.form.push_back({"Content-Length", std::to_string(c.item->size), {}, {}, {}, {}});
    s.form.push_back({"Content-MD5", md5_base64(c.item->md5), {}, {}, {}, {}});
    s.form.push_back({"file", {}, c.item->file, c.basename, {}, {}});
    s.secrets = {token};
    auto a = net::send(s);
    if (!a) return unexpected(a.error());
    if (a->status < 200 || a->status > 299)
        return fail_runtime(SourceLoc{net::mask(st.post_url)}, "the file's POST was refused: " + answer_text(a->status, a->body, {token}),
                            "try again; the stage answer's upload URL may have expired");
    return {};
}

Result<void> send_file(const Client& cl, const CondaFile& c, const std::string& label, Held held_now) {
    if (held_now == Held::other) {  // anaconda-client's --force: the old file goes first
        const std::string p = cl.file("dist", c);
        auto del = cl.call(net::Method::del, p);
        if (!del) return unexpected(del.error());
        if (del->status != 200 && del->status != 204) return cl.refused("DELETE", p, *del);
    }
    if (auto r = cl.ensure(cl.package(c), package_payload(c)); !r) return r;
    if (auto r = cl.ensure(cl.release(c), release_payload(c)); !r) return r;
    const std::string stage = cl.file("stage", c);
    const json payload = stage_payload(c, label);
    auto a = cl.call(net::Method::post, stage, &payload);
    if (!a) return unexpected(a.error());
    if (a->status == 409)
        return fail(SourceLoc{net::mask(cl.api.base) + "/" + stage}, "the server already has " + c.basename, "use --force to replace it");
    if (a->status != 200 && a->status != 201) return cl.refused("POST", stage, *a);
    auto st = parse_staged(net::mask(cl.api.base) + "/" + stage, a->body);
    if (!st) return unexpected(st.error());
    if (auto r = post_form(*st, c, cl.api.token); !r) return r;
    const std::string commit = cl.file("commit", c);
    const json done = {{"dist_id", st->dist_id}};
    auto com = cl.call(net::Method::post, commit, &done);
    if (!com) return unexpected(com.error());
    if (com->status != 200 && com->status != 201) return cl.refused("POST", commit, *com);
    return {};
}

}  // namespace

Result<UploadReport> upload_to_anaconda(const Target& t, const Plan& plan, const UploadOptions& opts, const Service& api) {
    const std::string label = !t.label.empty() ? t.label : !opts.label.empty() ? opts.label : "main";
    const Client cl{api, t.owner};
    UploadReport report;
    std::vector<CondaFile> files;
    // Every file first: read, then (unless a dry run) looked up on the server.
    for (const auto& it : plan.items) {
        auto c = read_conda_file(it);
        if (!c) return unexpected(c.error());
        UploadLine line{it.file.filename().string(), "anaconda://" + t.owner + "/" + label + "/" + it.key, "would upload"};
        if (opts.dry_run == DryRun::no) {
            auto h = held(cl, *c);
            if (!h) return unexpected(h.error());
            line.action = *h == Held::nothing ? "uploaded" : *h == Held::same ? "unchanged" : "replaced";
            if (line.action == "replaced" && opts.replace == Replace::no)
                return fail(SourceLoc{line.dest}, "exists with other content; not replacing it", "use --force to replace it");
        }
        report.files.push_back(line);
        files.push_back(std::move(*c));
    }
    if (opts.dry_run == DryRun::yes) return report;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string& action = report.files[i].action;
        if (action == "unchanged") continue;
        if (auto r = send_file(cl, files[i], label, action == "replaced" ? Held::other : Held::nothing); !r) return unexpected(r.error());
    }
    return report;
}

std::string service_answer(long status, const std::string& body, const std::string& token) {
    std::string out = net::status_text(status);
    json j = json::parse(body, nullptr, false);
    for (const char* k : {"error", "detail", "message"})  // anaconda.org's "error", a FastAPI "detail"
        if (j.is_object() && j.contains(k) && j[k].is_string())
            return net::mask_secrets(out + ": " + j[k].get<std::string>().substr(0, 300), {token});
    std::string text(str::trim(body.substr(0, 300)));
    if (!text.empty() && text.find('<') == std::string::npos) out += ": " + text;
    return net::mask_secrets(out, {token});
}

}  // namespace sf::publish::detail
