#include "publish/upload.hpp"

#include <set>

#include "channel/index.hpp"
#include "net/url.hpp"
#include "publish/pip_index.hpp"
#include "publish/remote.hpp"
#include "publish/services.hpp"
#include "publish/target.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::publish {

namespace stdfs = std::filesystem;
using detail::Plan;

namespace {

Result<UploadReport> conda_to_dir(const stdfs::path& dir, const Plan& plan, const UploadOptions& opts) {
    UploadReport report;
    if (opts.dry_run == DryRun::yes) {
        std::set<std::string> subdirs;
        for (const auto& it : plan.items) {
            report.files.push_back({it.file.filename().string(), (dir / it.key).string(), "would upload"});
            subdirs.insert(it.record.value("subdir", ""));
        }
        for (const auto& s : subdirs) report.indexed.push_back((dir / s / "repodata.json").string());
        return report;
    }
    std::vector<stdfs::path> files;
    for (const auto& it : plan.items) files.push_back(it.file);
    auto added = channel::add_packages(dir, files, opts.replace == Replace::yes ? channel::Existing::replace : channel::Existing::refuse);
    if (!added) return unexpected(added.error());
    std::set<std::string> subdirs;
    for (std::size_t i = 0; i < added->size(); ++i) {
        const auto how = (*added)[i].how;
        report.files.push_back({plan.items[i].file.filename().string(), (*added)[i].path.string(),
                                how == channel::Added::How::added ? "uploaded" : how == channel::Added::How::unchanged ? "unchanged" : "replaced"});
        if (how != channel::Added::How::unchanged) subdirs.insert(plan.items[i].record.value("subdir", ""));
    }
    for (const auto& s : subdirs) report.indexed.push_back((dir / s / "repodata.json").string());
    return report;
}

// Wheels into a folder: each checked first, then copied (temp + rename), then the pip index.
Result<UploadReport> wheels_to_dir(const stdfs::path& dir, const Plan& plan, const UploadOptions& opts) {
    std::error_code ec;
    if (stdfs::exists(dir, ec)) {
        auto kind = folder_kind(dir);
        if (!kind) return unexpected(kind.error());
        if (*kind == FolderKind::conda_channel && stdfs::exists(dir / "noarch", ec))
            return fail(SourceLoc{dir.string()}, "is a conda channel, not a wheel folder", "upload wheels to a folder of their own");
    }
    UploadReport report;
    for (const auto& it : plan.items) {
        UploadLine line{it.file.filename().string(), (dir / it.key).string(), "uploaded"};
        if (opts.dry_run == DryRun::yes) line.action = "would upload";
        else if (stdfs::exists(stdfs::symlink_status(dir / it.key, ec))) {
            auto sha = hash::file_sha256(dir / it.key);
            if (!sha) return unexpected(sha.error());
            if (*sha != it.sha256 && opts.replace == Replace::no)
                return fail(SourceLoc{line.dest}, "exists with other content; not replacing it", "use --force to replace it");
            line.action = *sha == it.sha256 ? "unchanged" : "replaced";
        }
        report.files.push_back(line);
    }
    report.indexed.push_back((dir / "simple/index.html").string());
    if (opts.dry_run == DryRun::yes) return report;
    auto d = fs::Dir::open(dir, fs::Create::yes);
    if (!d) return unexpected(d.error());
    bool changed = false;
    for (std::size_t i = 0; i < plan.items.size(); ++i) {
        if (report.files[i].action == "unchanged") continue;
        changed = true;
        if (auto r = fs::copy_file_into(*d, plan.items[i].key, plan.items[i].file); !r) return unexpected(r.error());
    }
    if (!changed) {
        report.indexed.clear();
        return report;
    }
    auto stats = index_wheels(dir);
    if (!stats) return unexpected(stats.error());
    return report;
}

std::string env_or(const UploadOptions& opts, const char* name, const std::string& dflt = {}) {
    auto it = opts.env.find(name);
    return it == opts.env.end() || it->second.empty() ? dflt : it->second;
}

// A service's API and key: --token, else `variable`; none needed for a dry run.
Result<detail::Service> service(const Target& t, const UploadOptions& opts, const char* url_var, const char* dflt_url,
                                const char* variable) {
    detail::Service s{env_or(opts, url_var, dflt_url), opts.token.empty() ? env_or(opts, variable) : opts.token};
    while (str::ends_with(s.base, "/")) s.base.pop_back();
    const std::string scheme = net::scheme_of(s.base);
    if (scheme != "http" && scheme != "https")
        return fail(SourceLoc{std::string(url_var)}, "'" + net::mask(s.base) + "' is no http(s) URL",
                    "set it to the server's URL or unset it");
    if (s.token.empty() && opts.dry_run == DryRun::no)
        return fail(SourceLoc{"--to " + t.shown}, std::string("needs a token: set ") + variable + " or give --token");
    return s;
}

Result<UploadReport> to_service(const Target& t, const Plan& plan, const UploadOptions& opts) {
    const bool anaconda = t.kind == Target::Kind::anaconda;
    if (plan.kind == Plan::Kind::wheels)
        return fail(SourceLoc{"--to " + t.shown},
                    std::string(anaconda ? "anaconda.org" : "prefix.dev") + " takes conda packages here, not wheels",
                    "upload wheels to a file://, s3:// or https:// wheel folder (a pip index), or to PyPI with twine");
    auto api = anaconda ? service(t, opts, "ANACONDA_SERVER_URL", "https://api.anaconda.org", "ANACONDA_API_TOKEN")
                        : service(t, opts, "PREFIX_SERVER_URL", "https://prefix.dev", "PREFIX_API_KEY");
    if (!api) return unexpected(api.error());
    return anaconda ? detail::upload_to_anaconda(t, plan, opts, *api) : detail::upload_to_prefix(t, plan, opts, *api);
}

}  // namespace

Result<UploadReport> upload(const std::string& target_text, const std::vector<stdfs::path>& files, const UploadOptions& opts) {
    auto target = parse_target(target_text);
    if (!target) return unexpected(target.error());
    auto plan = detail::plan_upload(files);
    if (!plan) return unexpected(plan.error());
    switch (target->kind) {
        case Target::Kind::file:
            return plan->kind == Plan::Kind::conda ? conda_to_dir(target->path, *plan, opts)
                                                   : wheels_to_dir(target->path, *plan, opts);
        case Target::Kind::s3: {
            AwsSetup setup;
            if (opts.dry_run == DryRun::no) {  // a dry run needs no credentials
                auto s = aws_setup(opts.env);
                if (!s) return unexpected(s.error());
                setup = std::move(*s);
            }
            auto store = s3_store({target->bucket, target->prefix}, std::move(setup));
            return detail::upload_to_store(*store, *plan, opts);
        }
        case Target::Kind::http: {
            auto store = http_store(target->url, opts.token.empty() ? env_or(opts, "SPLITFORGE_UPLOAD_TOKEN") : opts.token);
            return detail::upload_to_store(*store, *plan, opts);
        }
        case Target::Kind::anaconda:
        case Target::Kind::prefix: return to_service(*target, *plan, opts);
    }
    return fail("unknown target kind");
}

}  // namespace sf::publish
