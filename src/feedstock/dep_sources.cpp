// Inputs of `splitforge submodules` other than git: the name map, wheel
// metadata and repodata.
#include <archive.h>
#include <archive_entry.h>

#include <algorithm>

#include <boost/regex.hpp>
#include <yaml-cpp/yaml.h>

#include "feedstock/submodules.hpp"
#include "types/package_record.hpp"
#include "types/version.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::feedstock {
namespace {

namespace stdfs = std::filesystem;

// As in ECMAScript and Python's re, ^ and $ match only at the ends of the text and . matches no
// line break (Boost's Perl default would match ^ and $ at every line and . at any character).
constexpr boost::regex::flag_type kEcma = boost::regex::no_mod_s | boost::regex::no_mod_m;

std::string normalize_pypi(std::string n) {
    n = str::lower(n);
    for (char& c : n)
        if (c == '_' || c == '.') c = '-';
    return n;
}

// The METADATA member of a .whl (a zip), read through libarchive.
Result<std::string> wheel_metadata_from_zip(const stdfs::path& whl) {
    auto file = fs::InputFile::open(whl);  // a FIFO is refused, not waited on
    if (!file) return unexpected(file.error());
    archive* a = archive_read_new();
    archive_read_support_format_zip(a);
    std::string out;
    bool found = false;
    if (archive_read_open_fd(a, file->fd(), 1 << 16) != ARCHIVE_OK) {
        std::string why = archive_error_string(a) ? archive_error_string(a) : "cannot open";
        archive_read_free(a);
        return fail(SourceLoc{whl.string()}, "not a readable wheel: " + why);
    }
    archive_entry* e = nullptr;
    static const boost::regex member(R"([^/]+\.dist-info/METADATA)");
    while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
        std::string name = archive_entry_pathname(e);
        if (!boost::regex_match(name, member)) continue;
        char buf[8192];
        la_ssize_t n;
        while ((n = archive_read_data(a, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
        found = n == 0;
        break;
    }
    archive_read_free(a);
    if (!found) return fail(SourceLoc{whl.string()}, "no *.dist-info/METADATA in the wheel");
    return out;
}

Result<std::string> wheel_metadata(const stdfs::path& p) {
    std::error_code ec;
    if (stdfs::is_regular_file(p, ec)) {
        if (p.extension() == ".whl") return wheel_metadata_from_zip(p);
        return fs::read_file(p);  // a METADATA file itself
    }
    if (stdfs::is_directory(p, ec)) {
        std::vector<stdfs::path> found;
        for (auto it = stdfs::recursive_directory_iterator(p, ec); it != stdfs::recursive_directory_iterator();
             it.increment(ec)) {
            if (it.depth() > 4) it.disable_recursion_pending();
            if (it->path().filename() == "METADATA" && str::ends_with(it->path().parent_path().string(), ".dist-info"))
                found.push_back(it->path());
        }
        std::sort(found.begin(), found.end());
        if (found.empty())
            return fail(SourceLoc{p.string()}, "no *.dist-info/METADATA under the directory",
                        "pass a .whl file or an unpacked wheel");
        return fs::read_file(found.front());
    }
    return fail(SourceLoc{p.string()}, "wheel not found", "pass a .whl file, an unpacked wheel or a METADATA file");
}

}  // namespace

Result<void> read_name_map(const stdfs::path& file, NameMap& into) {
    auto text = fs::read_file(file);
    if (!text) return unexpected(text.error());
    YAML::Node root;
    try {
        root = YAML::Load(*text);
    } catch (const YAML::Exception& e) {
        return fail(SourceLoc{file.string(), e.mark.line + 1, e.mark.column + 1}, "not valid YAML: " + e.msg);
    }
    if (root.IsNull()) return {};
    auto section = [&](const char* name, std::map<std::string, std::string>& to) -> Result<void> {
        YAML::Node s = root[name];
        if (!s || s.IsNull()) return {};
        if (!s.IsMap())
            return fail(SourceLoc{file.string(), s.Mark().line + 1}, std::string(name) + " must map names to conda package names",
                        "e.g. `third_party/sleef: sleef`");
        for (const auto& kv : s)
            to[kv.first.as<std::string>()] = kv.second.IsScalar() ? kv.second.as<std::string>() : std::string();
        return {};
    };
    if (!root.IsMap())
        return fail(SourceLoc{file.string()}, "a name map has `submodules:` and `wheel:` mappings");
    if (auto r = section("submodules", into.submodules); !r) return r;
    if (auto r = section("wheel", into.wheel); !r) return r;
    return {};
}

Result<std::vector<std::pair<std::string, std::string>>> read_wheel_requirements(const stdfs::path& p) {
    auto text = wheel_metadata(p);
    if (!text) return unexpected(text.error());
    std::vector<std::pair<std::string, std::string>> reqs;
    static const boost::regex req(R"(([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*\(?([^;()]*)\)?\s*(;.*)?)", kEcma);
    for (const auto& line : str::split_lines(*text)) {
        if (line.empty()) break;  // headers end at the first blank line
        if (!str::starts_with(line, "Requires-Dist:")) continue;
        std::string body(str::trim(std::string_view(line).substr(14)));
        boost::smatch m;
        if (!boost::regex_match(body, m, req)) continue;
        std::string marker = m[4];
        if (marker.find("extra") != std::string::npos) continue;
        reqs.emplace_back(normalize_pypi(m[1]), std::string(str::trim(std::string(m[3]))));
    }
    return reqs;
}

Result<std::map<std::string, std::string>> newest_versions(const std::vector<stdfs::path>& sources) {
    std::map<std::string, types::Version> best;
    std::error_code ec;
    for (const auto& src : sources) {
        std::vector<stdfs::path> files;
        if (stdfs::is_directory(src, ec)) {
            if (stdfs::exists(src / "repodata.json", ec)) files.push_back(src / "repodata.json");
            for (const auto& e : stdfs::directory_iterator(src, ec))
                if (e.is_directory() && stdfs::exists(e.path() / "repodata.json", ec))
                    files.push_back(e.path() / "repodata.json");
            std::sort(files.begin(), files.end());
            if (files.empty())
                return fail(SourceLoc{src.string()}, "no repodata.json in the channel directory",
                            "index it first (`splitforge index`), or pass a repodata.json file");
        } else if (stdfs::is_regular_file(src, ec)) {
            files.push_back(src);
        } else {
            return fail(SourceLoc{src.string()}, "repodata not found", "pass a repodata.json file or a channel directory");
        }
        for (const auto& f : files) {
            auto text = fs::read_file(f);
            if (!text) return unexpected(text.error());
            auto rd = types::RepoData::parse(*text, f.string());
            if (!rd) {
                Error e = rd.error();
                e.message = "malformed repodata: " + e.message;
                if (e.hint.empty()) e.hint = "expected a conda repodata.json with `packages` / `packages.conda`";
                return unexpected(e);
            }
            for (const auto& rec : rd->packages) {
                auto it = best.find(rec.name);
                if (it == best.end() || it->second < rec.version) best.insert_or_assign(rec.name, rec.version);
            }
        }
    }
    std::map<std::string, std::string> out;
    for (const auto& [n, v] : best) out[n] = v.str();
    return out;
}

}  // namespace sf::feedstock
