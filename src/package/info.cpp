#include "package/info.hpp"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "core/version.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::package {

namespace stdfs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kToolVersion = kVersion;
const std::string kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string dump(const json& j) { return j.dump(2); }  // nlohmann objects keep keys sorted

std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

// A relative '/'-path that stays where it is put.
bool safe_rel(const std::string& p) {
    if (p.empty() || p[0] == '/') return false;
    for (const auto& part : str::split(p, '/'))
        if (part == ".." || part.empty()) return false;
    return true;
}

}  // namespace

Result<std::vector<archive::TarEntry>> payload_entries(const stdfs::path& dir) {
    auto entries = archive::tree_entries(dir);
    if (!entries) return unexpected(entries.error());
    for (const auto& e : *entries) {
        if (e.name == "info" || str::starts_with(e.name, "info/"))
            return fail(SourceLoc{(dir / "info").string()}, "the package directory contains info/, which is reserved",
                        "the writer generates info/; put extra metadata in PackageMeta");
        if (e.kind != archive::EntryKind::symlink) continue;
        if (!e.link_target.empty() && e.link_target[0] == '/')
            return fail(SourceLoc{e.name}, "absolute symlink to '" + e.link_target + "'",
                        "run post-processing first, or make the link relative");
        std::string norm = (stdfs::path(e.name).parent_path() / e.link_target).lexically_normal().generic_string();
        if (norm == ".." || str::starts_with(norm, "../"))
            return fail(SourceLoc{e.name}, "symlink to '" + e.link_target + "' escapes the prefix",
                        "keep symlink targets inside the package");
    }
    return entries;
}

Result<std::vector<PathEntry>> path_entries(const stdfs::path& dir, const std::vector<archive::TarEntry>& payload,
                                            const std::vector<PrefixFile>& prefix_files) {
    using types::PathType;
    std::map<std::string, PrefixFile> pf;
    for (const auto& p : prefix_files) pf[p.path] = p;
    std::vector<PathEntry> out;
    out.reserve(payload.size());
    for (const auto& e : payload) {
        PathEntry r;
        r.path = e.name;
        switch (e.kind) {
            case archive::EntryKind::directory:
                r.type = PathType::directory;
                break;
            case archive::EntryKind::file: {
                r.type = PathType::hardlink;
                auto d = hash::file_sha256(e.source);
                if (!d) return unexpected(d.error());
                r.sha256 = *d;
                struct stat st {};
                if (::stat(e.source.c_str(), &st) != 0) return fail(SourceLoc{e.source.string()}, "cannot stat");
                r.size = static_cast<std::uint64_t>(st.st_size);
                if (auto it = pf.find(e.name); it != pf.end()) {
                    r.prefix_placeholder = it->second.placeholder;
                    r.file_mode = it->second.mode;
                }
                break;
            }
            case archive::EntryKind::symlink: {
                r.type = PathType::softlink;
                stdfs::path abs = dir / e.name;
                std::error_code ec;
                if (stdfs::is_regular_file(abs, ec)) {  // follows the link
                    auto d = hash::file_sha256(abs);
                    if (!d) return unexpected(d.error());
                    r.sha256 = *d;
                    r.size = static_cast<std::uint64_t>(stdfs::file_size(abs, ec));
                } else {
                    r.sha256 = kEmptySha256;
                    r.size = 0;
                }
                break;
            }
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::string index_json(const PackageMeta& m, std::int64_t timestamp_ms) {
    json j = json::object();
    if (!m.subdir.is_noarch()) {
        j["arch"] = m.subdir.arch();
        j["platform"] = m.subdir.os();
    } else {
        j["arch"] = nullptr;
        j["platform"] = nullptr;
    }
    j["build"] = m.build;
    j["build_number"] = m.build_number;
    if (!m.constrains.empty()) j["constrains"] = sorted(m.constrains);
    j["depends"] = sorted(m.depends);
    if (!m.license.empty()) j["license"] = m.license;
    if (!m.license_family.empty()) j["license_family"] = m.license_family;
    j["name"] = m.name;
    if (m.noarch != types::NoArch::none) j["noarch"] = types::to_string(m.noarch);
    j["subdir"] = m.subdir.name();
    j["timestamp"] = timestamp_ms;
    if (!m.track_features.empty()) j["track_features"] = str::join(m.track_features, " ");
    j["version"] = m.version;
    for (const auto& [k, v] : m.index_extra.items())
        if (!j.contains(k)) j[k] = v;
    return dump(j);
}

std::string paths_json(const std::vector<PathEntry>& records) {
    types::PathsJson doc;
    doc.paths = records;
    return dump(doc.to_json());
}

std::string files_list(const std::vector<PathEntry>& records) {
    std::string out;
    for (const auto& r : records)
        if (r.type != types::PathType::directory) out += r.path + "\n";
    return out;
}

std::string has_prefix(const std::vector<PathEntry>& records) {
    std::string out;
    for (const auto& r : records)
        if (!r.prefix_placeholder.empty())
            out += r.prefix_placeholder + " " + std::string(types::to_string(r.file_mode)) + " " + r.path + "\n";
    return out;
}

void mark_no_link(std::vector<PathEntry>& records, const std::vector<std::string>& patterns) {
    for (auto& r : records) {
        if (r.type == types::PathType::directory) continue;
        for (const auto& p : patterns)
            if (::fnmatch(p.c_str(), r.path.c_str(), 0) == 0) r.no_link = true;
    }
}

std::string no_link_list(const std::vector<PathEntry>& records) {
    std::string out;
    for (const auto& r : records)
        if (r.no_link) out += r.path + "\n";
    return out;
}

std::string about_json(const PackageMeta& m) {
    json j = json::object();
    auto put = [&](const char* k, const std::string& v) {
        if (!v.empty()) j[k] = v;
    };
    put("home", m.home);
    put("license", m.license);
    put("license_family", m.license_family);
    put("summary", m.summary);
    put("description", m.description);
    put("dev_url", m.dev_url);
    put("doc_url", m.doc_url);
    if (!m.license_file_names.empty()) j["license_file"] = m.license_file_names;
    j["extra"] = m.extra.is_null() ? json::object() : m.extra;
    j["splitforge_version"] = kToolVersion;
    return dump(j);
}

std::string run_exports_json(const types::RunExports& r) {
    if (r.empty()) return {};
    return dump(r.to_json());
}

Result<std::vector<archive::TarEntry>> info_entries(const PackageMeta& m, const std::vector<PathEntry>& records,
                                                    std::int64_t timestamp_ms) {
    std::vector<archive::TarEntry> out;
    auto text = [&](const std::string& name, std::string content) {
        archive::TarEntry e;
        e.name = "info/" + name;
        e.content = std::move(content);
        e.mode = 0644;
        out.push_back(std::move(e));
    };
    text("index.json", index_json(m, timestamp_ms));
    text("paths.json", paths_json(records));
    text("files", files_list(records));
    if (auto hp = has_prefix(records); !hp.empty()) text("has_prefix", hp);
    if (auto nl = no_link_list(records); !nl.empty()) text("no_link", nl);
    text("about.json", about_json(m));
    if (auto re = run_exports_json(m.run_exports); !re.empty()) text("run_exports.json", re);
    if (!m.link_json.empty()) text("link.json", m.link_json);
    text("hash_input.json", dump(m.hash_input.is_null() ? json::object() : m.hash_input));

    if (!m.test.commands.empty()) {
        std::string sh = "#!/bin/bash\nset -ex\n\n";
        for (const auto& c : m.test.commands) sh += c + "\n";
        sh += "exit 0\n";
        text("test/run_test.sh", sh);
        out.back().mode = 0755;
    }
    if (!m.test.requires_.empty()) text("test/test_time_dependencies.json", dump(json(m.test.requires_)));

    auto extra = [&](const std::string& dir, const std::vector<ExtraFile>& files) -> Result<void> {
        for (const auto& f : files) {
            if (!safe_rel(f.dest))
                return fail("bad destination '" + f.dest + "' for a file in info/" + dir,
                            "use a relative path without '..'");
            archive::TarEntry e;
            e.name = "info/" + dir + "/" + f.dest;
            e.mode = 0644;
            if (!f.source.empty()) {
                struct stat st {};
                if (::stat(f.source.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
                    return fail(SourceLoc{f.source.string()}, "cannot read file for info/" + dir,
                                "check that it exists and is a regular file");
                e.source = f.source;
                e.mode = st.st_mode & 0755;
            } else {
                e.content = f.content;
            }
            out.push_back(std::move(e));
        }
        return {};
    };
    if (auto r = extra("test", m.test.files); !r) return unexpected(r.error());
    if (auto r = extra("recipe", m.recipe_files); !r) return unexpected(r.error());
    if (auto r = extra("licenses", m.license_files); !r) return unexpected(r.error());

    archive::sort_entries(out);
    for (std::size_t i = 1; i < out.size(); ++i)
        if (out[i].name == out[i - 1].name) return fail("two files would be written to " + out[i].name);
    return out;
}

}  // namespace sf::package
