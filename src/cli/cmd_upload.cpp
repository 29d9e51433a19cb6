// splitforge upload --to TARGET FILE... [--force] [--dry-run] [--token TOKEN] [--no-index] [--json]
// TARGET: file://DIR, s3://BUCKET/PREFIX, https://..., anaconda://OWNER[/LABEL], prefix://CHANNEL
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "publish/upload.hpp"

extern char** environ;

namespace sf::cli {

namespace {

struct UploadArgs {
    std::string target, token;
    std::vector<std::string> files;
    bool force = false, dry_run = false, no_index = false;
};

}  // namespace

publish::UploadOptions upload_options(bool force, bool dry_run, bool no_index, std::string token) {
    publish::UploadOptions o;
    o.replace = force ? publish::Replace::yes : publish::Replace::no;
    o.dry_run = dry_run ? publish::DryRun::yes : publish::DryRun::no;
    o.index = no_index ? publish::RemoteIndex::no : publish::RemoteIndex::yes;
    for (char** e = environ; e && *e; ++e) {
        std::string kv(*e);
        const auto eq = kv.find('=');
        if (eq != std::string::npos) o.env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    o.token = std::move(token);  // else the target's variable, read by publish::upload
    return o;
}

nlohmann::json upload_json(const publish::UploadReport& r) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : r.files) files.push_back({{"file", f.file}, {"to", f.dest}, {"action", f.action}});
    return {{"files", files}, {"indexed", r.indexed}};
}

void print_upload(const publish::UploadReport& r, std::ostream& out) {
    for (const auto& f : r.files) out << f.action << " " << f.file << " -> " << f.dest << "\n";
    const bool dry = !r.files.empty() && r.files.front().action == "would upload";
    for (const auto& i : r.indexed) out << (dry ? "would index " : "indexed ") << i << "\n";
}

void register_upload(CLI::App& app, Cli& cli) {
    auto a = std::make_shared<UploadArgs>();
    auto* sub = app.add_subcommand("upload", "Upload conda packages or wheels to a channel, an S3 bucket or a server (then index it there), anaconda.org or prefix.dev");
    sub->add_option("--to", a->target, "file://DIR, s3://BUCKET/PREFIX, https://HOST/PATH, anaconda://OWNER[/LABEL] (label default main) or prefix://CHANNEL")->required();
    sub->add_option("FILE", a->files, "Conda packages (.conda, .tar.bz2) or wheels (.whl)")->required();
    sub->add_flag("--force", a->force, "Replace a file of the same name whose content differs (default: refuse)");
    sub->add_flag("--dry-run", a->dry_run, "List what would go where; contact nothing");
    sub->add_option("--token", a->token, "The token; never printed. Default: https $SPLITFORGE_UPLOAD_TOKEN (a Bearer token), anaconda $ANACONDA_API_TOKEN, prefix $PREFIX_API_KEY");
    sub->add_flag("--no-index", a->no_index, "s3/https: do not write repodata.json there (a server that indexes itself)");
    add_json_flag(sub, cli);
    sub->callback([&cli, a] {
        cli.action = [&cli, a] {
            std::vector<std::filesystem::path> files(a->files.begin(), a->files.end());
            auto opts = upload_options(a->force, a->dry_run, a->no_index, a->token);
            auto report = value_or_throw(publish::upload(a->target, files, opts));
            if (cli.console.json) cli.console.print_json(upload_json(report));
            else print_upload(report, std::cout);
            return 0;
        };
    });
}

}  // namespace sf::cli
