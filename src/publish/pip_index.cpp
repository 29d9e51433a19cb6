#include "publish/pip_index.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "archive/zip_read.hpp"
#include "binary/artifact.hpp"
#include "types/pep440.hpp"
#include "types/platform.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::publish {

namespace stdfs = std::filesystem;

namespace {

constexpr std::uint64_t kMaxMetadata = 16u << 20;

// A wheel listed on its project's page.
struct Listed {
    std::string file, sha256, metadata_sha256, requires_python;
    types::Pep440Version version;
};

bool is_metadata_member(const std::string& name) {
    // `<name>-<version>.dist-info/METADATA` at the top of the wheel.
    const auto slash = name.find('/');
    return slash != std::string::npos && name.compare(slash, std::string::npos, "/METADATA") == 0 &&
           str::ends_with(name.substr(0, slash), ".dist-info");
}

std::vector<std::string> wheel_files(const stdfs::path& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (n[0] != '.' && str::ends_with(n, ".whl") && it->is_regular_file(ec) && !it->is_symlink(ec)) out.push_back(n);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A link target: the file name percent-encoded ('+' of a local version as %2B, as PyTorch's pages write it).
std::string url_quote(const std::string& s) {
    static const char* hexd = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') out += static_cast<char>(c);
        else out += {'%', hexd[c >> 4], hexd[c & 15]};
    }
    return out;
}

std::string page(const std::string& title, const std::string& body) {
    return "<!DOCTYPE html>\n<html>\n  <head>\n    <meta name=\"pypi:repository-version\" content=\"1.0\">\n    <title>" +
           html_escape(title) + "</title>\n  </head>\n  <body>\n    <h1>" + html_escape(title) + "</h1>\n" + body +
           "  </body>\n</html>\n";
}

std::string project_page(const std::string& project, const std::vector<const Listed*>& wheels) {
    std::string body;
    for (const Listed* w : wheels) {
        body += "    <a href=\"../../" + url_quote(w->file) + "#sha256=" + w->sha256 + "\"";
        if (!w->requires_python.empty()) body += " data-requires-python=\"" + html_escape(w->requires_python) + "\"";
        body += " data-dist-info-metadata=\"sha256=" + w->metadata_sha256 + "\" data-core-metadata=\"sha256=" +
                w->metadata_sha256 + "\">" + html_escape(w->file) + "</a><br>\n";
    }
    return page("Links for " + project, body);
}

// One wheel read: its hash, its METADATA written beside it (when changed).
Result<Listed> read_wheel(const fs::Dir& dir, const std::string& file, const types::Pep440Version& version) {
    const stdfs::path p = dir.path() / file;
    auto meta = wheel_metadata(p);
    if (!meta) return unexpected(meta.error());
    auto sha = hash::file_sha256(p);
    if (!sha) return unexpected(sha.error());
    Listed w{file, *sha, hash::sha256(*meta), metadata_field(*meta, "Requires-Python"), version};
    auto old = dir.read(file + ".metadata", kMaxMetadata);
    if (!old || *old != *meta)
        if (auto r = dir.write_atomic(file + ".metadata", *meta); !r) return unexpected(r.error());
    return w;
}

// The wheels --keep leaves on the page: all but dev versions past the newest N.
std::vector<const Listed*> kept(const std::vector<Listed>& all, const PipIndexOptions& opts, int& hidden) {
    std::vector<types::Pep440Version> devs;
    for (const auto& w : all) {
        auto pub = types::Pep440Version::parse(w.version.public_str());
        if (w.version.is_dev() && std::find(devs.begin(), devs.end(), *pub) == devs.end()) devs.push_back(*pub);
    }
    std::sort(devs.begin(), devs.end(), std::greater<>());
    std::vector<const Listed*> out;
    for (const auto& w : all) {
        auto pub = types::Pep440Version::parse(w.version.public_str());
        const auto rank = std::find(devs.begin(), devs.end(), *pub) - devs.begin();
        if (opts.keep && w.version.is_dev() && rank >= *opts.keep) {
            ++hidden;
            continue;
        }
        out.push_back(&w);
    }
    return out;
}

// Pages and .metadata files whose wheels are gone.
void remove_stale(const fs::Dir& dir, const fs::Dir& simple, const std::map<std::string, std::vector<Listed>>& projects) {
    std::error_code ec;
    for (stdfs::directory_iterator it(simple.path(), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (projects.count(n) || n[0] == '.' || !it->is_directory(ec) || it->is_symlink(ec)) continue;
        if (auto sub = simple.sub(n); sub && sub->kind("index.html") == fs::Kind::file) (void)sub->remove("index.html");
    }
    for (stdfs::directory_iterator it(dir.path(), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (str::ends_with(n, ".whl.metadata") && dir.kind(n) == fs::Kind::file &&
            dir.kind(n.substr(0, n.size() - 9)) == fs::Kind::missing)
            (void)dir.remove(n);
    }
}

Result<void> write_pages(const fs::Dir& dir, const std::map<std::string, std::vector<Listed>>& projects,
                         const PipIndexOptions& opts, PipIndexStats& stats) {
    auto simple = dir.sub("simple", fs::Create::yes);
    if (!simple) return unexpected(simple.error());
    simple->sweep_stale_temps();
    std::string root;
    for (const auto& [name, wheels] : projects) {
        auto sub = simple->sub(name, fs::Create::yes);
        if (!sub) return unexpected(sub.error());
        sub->sweep_stale_temps();
        if (auto r = sub->write_atomic("index.html", project_page(name, kept(wheels, opts, stats.hidden))); !r)
            return unexpected(r.error());
        root += "    <a href=\"" + url_quote(name) + "/\">" + html_escape(name) + "</a><br>\n";
        ++stats.projects;
    }
    // The project pages first, the list of them last.
    if (auto r = simple->write_atomic("index.html", page("Simple index", root)); !r) return unexpected(r.error());
    remove_stale(dir, *simple, projects);
    return {};
}

}  // namespace

std::string html_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string metadata_field(const std::string& metadata, const std::string& key) {
    std::string value;
    bool in = false;
    for (const auto& raw : str::split_lines(metadata)) {
        std::string line = raw;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) break;  // the headers end; the description follows
        if (line[0] == ' ' || line[0] == '\t') {
            if (in) value += " " + std::string(str::trim(line));
            continue;
        }
        in = false;
        const auto colon = line.find(':');
        if (colon == std::string::npos || !value.empty()) continue;
        std::string k = line.substr(0, colon);
        if (str::lower(k) != str::lower(key)) continue;
        value = std::string(str::trim(line.substr(colon + 1)));
        in = true;
    }
    return value;
}

Result<std::string> wheel_metadata(const stdfs::path& wheel) {
    auto name = binary::parse_wheel_name(wheel.filename().string());
    if (!name) return fail(SourceLoc{wheel.string()}, name.error().message, name.error().hint);
    auto meta = archive::read_zip_member(wheel, is_metadata_member, kMaxMetadata, ".dist-info/METADATA");
    if (!meta) return unexpected(meta.error());
    const std::string n = metadata_field(*meta, "Name"), v = metadata_field(*meta, "Version");
    auto fv = types::Pep440Version::parse(name->version);
    auto mv = types::Pep440Version::parse(v);
    if (types::pep503_name(n) != types::pep503_name(name->distribution) || !fv || !mv || *fv != *mv)
        return fail(SourceLoc{wheel.string()},
                    "its METADATA names " + n + " " + v + ", not what the file name says (" + name->distribution + " " +
                        name->version + ")",
                    "rebuild the wheel; a renamed wheel is not installable");
    return meta;
}

Result<FolderKind> folder_kind(const stdfs::path& dir) {
    std::error_code ec;
    if (!stdfs::is_directory(dir, ec))
        return fail(SourceLoc{dir.string()}, "not a directory", "give a channel directory or a folder of wheels");
    std::string wheel, subdir;
    for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (str::ends_with(n, ".whl") && wheel.empty()) wheel = n;
        if (it->is_directory(ec) && types::Platform::parse(n) && subdir.empty()) subdir = n;
    }
    if (!wheel.empty() && !subdir.empty())
        return fail(SourceLoc{dir.string()}, "holds wheels (" + wheel + ") and a conda subdir (" + subdir + "/)",
                    "keep wheels and conda channels in separate folders; index each on its own");
    return wheel.empty() ? FolderKind::conda_channel : FolderKind::wheel_folder;
}

Result<PipIndexStats> index_wheels(const stdfs::path& dir, const PipIndexOptions& opts) {
    if (opts.keep && *opts.keep < 1) return fail("--keep must be 1 or more");
    auto d = fs::Dir::open(dir);
    if (!d) return unexpected(d.error());
    fs::FileLock lock(dir / ".index.lock");
    d->sweep_stale_temps();
    PipIndexStats stats;
    std::map<std::string, std::vector<Listed>> projects;
    for (const auto& file : wheel_files(dir)) {
        auto name = binary::parse_wheel_name(file);
        if (!name) {
            stats.warnings.push_back(file + ": skipped: " + name.error().message);
            continue;
        }
        auto version = types::Pep440Version::parse(name->version);
        if (!version) {
            stats.warnings.push_back(file + ": skipped: " + version.error().message);
            continue;
        }
        auto w = read_wheel(*d, file, *version);
        if (!w) {
            stats.warnings.push_back(file + ": skipped: " + w.error().str());
            continue;
        }
        projects[types::pep503_name(name->distribution)].push_back(std::move(*w));
        ++stats.wheels;
    }
    for (auto& [_, wheels] : projects)
        std::stable_sort(wheels.begin(), wheels.end(), [](const Listed& a, const Listed& b) { return a.version < b.version; });
    if (auto r = write_pages(*d, projects, opts, stats); !r) return unexpected(r.error());
    return stats;
}

}  // namespace sf::publish
