// prefix.dev (or a self-hosted instance) as rattler_upload's prefix client
// speaks to it (conda/rattler crates/rattler_upload/src/upload/prefix.rs):
//   POST {base}/api/v1/upload/{channel}[?force=true]
//        Authorization: Bearer KEY, a multipart/form-data body with one part
//        "file" (filename, and its own Content-Type application/octet-stream,
//        Content-Length, X-File-Name and X-File-SHA256 headers);
//        2xx taken, 409 "already exists", 401/403 the key's fault.
// rattler_upload sends without looking first; to check every file before
// any is sent (and leave the same bytes alone) we read the channel's
// {base}/{channel}/{subdir}/repodata.json first, with the same key.
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "net/http.hpp"
#include "net/send.hpp"
#include "net/url.hpp"
#include "publish/services.hpp"
#include "types/json_fields.hpp"

namespace sf::publish::detail {

namespace {

using nlohmann::json;

std::string origin_of(const std::string& url) {
    const auto scheme = url.find("://");
    const auto slash = scheme == std::string::npos ? std::string::npos : url.find('/', scheme + 3);
    return url.substr(0, slash);
}

// A GET with the key, a redirect followed (at most 3; the key only to the same host).
Result<net::Answer> get_channel_file(const Service& api, std::string url) {
    for (int hop = 0;; ++hop) {
        net::Send s;
        s.url = url;
        if (origin_of(url) == origin_of(api.base)) s.headers = {{"Authorization", "Bearer " + api.token}};
        s.secrets = {api.token};
        auto a = net::send(s);
        if (!a || a->status < 300 || a->status > 399 || hop == 3 || a->header("location").empty()) return a;
        const std::string loc = a->header("location");
        url = loc.front() == '/' ? origin_of(url) + loc : loc;
    }
}

// FILE -> sha256 of what the channel's SUBDIR/repodata.json lists (none when the subdir is not there yet).
Result<std::map<std::string, std::string>> channel_files(const Service& api, const std::string& channel, const std::string& subdir) {
    const std::string url = api.base + "/" + channel + "/" + subdir + "/repodata.json";
    auto a = get_channel_file(api, url);
    if (!a) return unexpected(a.error());
    std::map<std::string, std::string> files;
    if (a->status == 404) return files;
    if (a->status != 200)
        return fail_runtime(SourceLoc{net::mask(url)}, "GET refused: " + service_answer(a->status, a->body, api.token),
                            a->status == 401 || a->status == 403 ? "check the key (--token, PREFIX_API_KEY) and the channel's name"
                                                                 : "check the channel and the server (PREFIX_SERVER_URL)");
    if (types::json_too_deep(a->body)) return fail_runtime(SourceLoc{net::mask(url)}, "is nested too deep");
    const json j = json::parse(a->body, nullptr, false);
    if (!j.is_object()) return fail_runtime(SourceLoc{net::mask(url)}, "is not a JSON object");
    for (const char* section : {"packages", "packages.conda"}) {
        if (!j.contains(section) || !j[section].is_object()) continue;
        for (const auto& [file, rec] : j[section].items())
            files[file] = rec.is_object() && rec.contains("sha256") && rec["sha256"].is_string() ? rec["sha256"].get<std::string>() : "";
    }
    return files;
}

Result<void> post_package(const Service& api, const std::string& channel, const Item& it, Replace replace, const std::string& dest) {
    net::Send s;
    s.method = net::Method::post;
    s.url = api.base + "/api/v1/upload/" + channel + (replace == Replace::yes ? "?force=true" : "");
    s.headers = {{"Authorization", "Bearer " + api.token}};
    const std::string name = it.file.filename().string();
    s.form.push_back({"file", {}, it.file, name, "application/octet-stream",
                      {{"Content-Length", std::to_string(it.size)}, {"X-File-Name", name}, {"X-File-SHA256", it.sha256}}});
    s.secrets = {api.token};
    auto a = net::send(s);
    if (!a) return unexpected(a.error());
    if (a->status >= 200 && a->status <= 299) return {};
    // Its repodata.json did not list the file (not indexed yet): which bytes it holds is not known here.
    if (a->status == 409)
        return fail(SourceLoc{dest}, "the server already has a file of that name (HTTP 409); not replacing it",
                    "use --force to replace it");
    return fail_runtime(SourceLoc{net::mask(s.url)}, "POST refused: " + service_answer(a->status, a->body, api.token),
                        a->status == 401 || a->status == 403 ? "check the key (--token, PREFIX_API_KEY) and that it may write to " + channel
                                                             : "check the channel and the server (PREFIX_SERVER_URL)");
}

}  // namespace

Result<UploadReport> upload_to_prefix(const Target& t, const Plan& plan, const UploadOptions& opts, const Service& api) {
    UploadReport report;
    std::map<std::string, std::map<std::string, std::string>> listed;  // subdir -> file -> sha256
    if (opts.dry_run == DryRun::no) {
        std::set<std::string> subdirs;
        for (const auto& it : plan.items) subdirs.insert(it.record.value("subdir", ""));
        for (const auto& s : subdirs) {
            auto files = channel_files(api, t.channel, s);
            if (!files) return unexpected(files.error());
            listed[s] = std::move(*files);
        }
    }
    for (const auto& it : plan.items) {
        UploadLine line{it.file.filename().string(), "prefix://" + t.channel + "/" + it.key, "would upload"};
        if (opts.dry_run == DryRun::no) {
            const auto& files = listed[it.record.value("subdir", "")];
            const auto f = files.find(line.file);
            line.action = f == files.end() ? "uploaded" : f->second == it.sha256 ? "unchanged" : "replaced";
            if (line.action == "replaced" && opts.replace == Replace::no)
                return fail(SourceLoc{line.dest}, "exists with other content; not replacing it", "use --force to replace it");
        }
        report.files.push_back(line);
    }
    if (opts.dry_run == DryRun::yes) return report;
    for (std::size_t i = 0; i < plan.items.size(); ++i) {
        if (report.files[i].action == "unchanged") continue;
        if (auto r = post_package(api, t.channel, plan.items[i], opts.replace, report.files[i].dest); !r) return unexpected(r.error());
    }
    return report;
}

}  // namespace sf::publish::detail
