// splitforge package DIR --name N --version V --build B ... --output-dir OUT
#include <cstdlib>
#include <iostream>
#include <memory>
#include <tuple>

#include "channel/index.hpp"
#include "cli/commands.hpp"
#include "package/meta.hpp"
#include "package/postprocess.hpp"
#include "package/writer.hpp"
#include "types/identifiers.hpp"
#include "util/fs.hpp"
#include "util/timestamp.hpp"
#include "types/json_fields.hpp"
#include "types/match_spec.hpp"

namespace sf::cli {

namespace {

struct PackageOpts {
    std::string dir, meta_file, name, version, build, subdir, noarch, license, summary;
    int build_number = -1;
    std::vector<std::string> depends, constrains;
    std::string format = "conda";
    int level = 19, threads = 1;
    std::string output_dir, channel;
    std::string prefix;
    bool no_binary_prefix = false, no_rpath = false;
    std::optional<std::int64_t> timestamp;
};

// Each identifier option is checked where it enters, so its error names the option.
void check_options(const PackageOpts& o) {
    for (auto [option, check, value] :
         {std::tuple{"--name", &types::check_package_name, &o.name}, {"--version", types::check_version, &o.version},
          {"--build", types::check_build_string, &o.build}, {"--subdir", types::check_subdir, &o.subdir},
          {"--prefix", types::check_prefix, &o.prefix}})
        if (!value->empty()) value_or_throw(check(*value), option);
}

int run_package(const PackageOpts& o, const Console& console) {
    check_options(o);
    package::PackageMeta m;
    if (!o.meta_file.empty()) {
        auto text = value_or_throw(fs::read_file(o.meta_file));
        nlohmann::json j;
        if (types::json_too_deep(text))
            throw Failure(Error{SourceLoc{o.meta_file}, "JSON nested too deeply", {}});
        try {
            j = nlohmann::json::parse(text);
        } catch (const std::exception& e) {
            throw Failure(Error{SourceLoc{o.meta_file}, std::string("invalid JSON: ") + e.what(), {}});
        }
        // Command-line fields complete the file, so fill them in before validating.
        if (!o.name.empty()) j["name"] = o.name;
        if (!o.version.empty()) j["version"] = o.version;
        if (!o.build.empty()) j["build"] = o.build;
        m = value_or_throw(package::meta_from_json(j, o.meta_file));
    } else {
        m.name = o.name;
        m.version = o.version;
        m.build = o.build;
    }
    if (o.build_number >= 0) m.build_number = o.build_number;
    if (!o.depends.empty()) m.depends = o.depends;
    if (!o.constrains.empty()) m.constrains = o.constrains;
    // What index.json lists must be match specs an installer can read back.
    for (const auto& [option, specs] : {std::pair{"--depends", &m.depends}, std::pair{"--constrains", &m.constrains}})
        for (const auto& spec : *specs) value_or_throw(types::MatchSpec::parse(spec), option);
    if (!o.noarch.empty()) {
        m.noarch = value_or_throw(types::parse_noarch(o.noarch), "--noarch");
        if (o.subdir.empty()) m.subdir = types::Platform::noarch();
    }
    if (!o.subdir.empty()) m.subdir = value_or_throw(types::Platform::parse(o.subdir), "--subdir");
    if (!o.license.empty()) m.license = o.license;
    if (!o.summary.empty()) m.summary = o.summary;
    // Reproducible by default: SOURCE_DATE_EPOCH, else the newest file, not the clock.
    m.timestamp = o.timestamp ? *o.timestamp : timestamp::reproducible({o.dir}) * 1000;
    package::MakeOptions mo;
    if (!o.prefix.empty()) {
        package::PostprocessOptions po;
        po.prefix = o.prefix;
        po.binary = o.no_binary_prefix ? package::BinaryPrefix::ignore : package::BinaryPrefix::detect;
        po.rpath = o.no_rpath ? package::RpathFix::keep : package::RpathFix::rewrite;
        mo.postprocess = po;
    }
    mo.write.format = value_or_throw(package::parse_format(o.format));
    mo.write.zstd_level = o.level;
    mo.write.threads = o.threads;
    auto made = value_or_throw(package::make_package(o.dir, m, o.output_dir, mo));
    for (const auto& w : made.warnings) console.warning(w);
    nlohmann::json files = nlohmann::json::array(), in_channel = nlohmann::json::array();
    for (const auto& p : made.files) {
        files.push_back(p.string());
        if (!console.json) std::cout << p.string() << "\n";
        if (!o.channel.empty()) {
            auto added = value_or_throw(channel::add_package(o.channel, p)).string();
            in_channel.push_back(added);
            if (!console.json) std::cout << added << "\n";
        }
    }
    if (console.json) console.print_json({{"files", files}, {"channel", in_channel}, {"warnings", made.warnings}});
    return 0;
}

}  // namespace

void register_package(CLI::App& app, Cli& cli) {
    auto o = std::make_shared<PackageOpts>();
    auto* sub = app.add_subcommand("package", "Write a conda package (.conda and/or .tar.bz2) from a directory");
    sub->add_option("DIR", o->dir, "Directory of the output's files, relative to the prefix")->required()->check(CLI::ExistingDirectory);
    sub->add_option("--meta", o->meta_file, "JSON file with the package metadata (PackageMeta fields)");
    sub->add_option("--name", o->name, "Package name");
    sub->add_option("--version", o->version, "Package version");
    sub->add_option("--build", o->build, "Build string");
    sub->add_option("--build-number", o->build_number, "Build number");
    sub->add_option("--depends", o->depends, "A run dependency (repeatable)");
    sub->add_option("--constrains", o->constrains, "A run constraint (repeatable)");
    sub->add_option("--subdir", o->subdir, "Target subdir, e.g. linux-64 (default: this machine's, or noarch)");
    sub->add_option("--noarch", o->noarch, "noarch kind: generic or python");
    sub->add_option("--license", o->license, "License (SPDX)");
    sub->add_option("--summary", o->summary, "One-line summary");
    sub->add_option("--timestamp", o->timestamp, "index.json timestamp in ms (default: SOURCE_DATE_EPOCH, else the newest mtime of DIR's files)");
    sub->add_option("--format", o->format, "conda, tar.bz2 or both")->check(one_of({"conda", "tar.bz2", "both"}));
    sub->add_option("--compression-level", o->level, "zstd level (default 19)")->check(CLI::Range(1, 22));
    sub->add_option("--threads", o->threads, "zstd worker threads")->check(CLI::Range(1, 256));
    sub->add_option("--prefix", o->prefix, "Build prefix to detect in files and relocate in RPATHs (runs post-processing)");
    sub->add_flag("--no-binary-prefix", o->no_binary_prefix, "Do not record the prefix in binary files");
    sub->add_flag("--no-rpath-fix", o->no_rpath, "Do not rewrite ELF RPATHs");
    add_output_folder(sub, o->output_dir, "Where to write the package(s)", ShortO::yes)->required();
    sub->add_option("--channel", o->channel, "Also add the package(s) to this local channel and re-index it");
    add_json_flag(sub, cli);
    sub->callback([&cli, o] { cli.action = [&cli, o] { return run_package(*o, cli.console); }; });
}

}  // namespace sf::cli
