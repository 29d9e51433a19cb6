#include "package/inspect.hpp"

#include <map>
#include <set>
#include <sstream>

#include "archive/read.hpp"
#include "types/json_fields.hpp"
#include "types/package_record.hpp"
#include "util/strings.hpp"

namespace sf::package {

using nlohmann::json;

Result<json> inspect_package(const std::filesystem::path& pkg) {
    auto members = archive::list_package(pkg, archive::Part::info);
    if (!members) return unexpected(members.error());
    std::map<std::string, std::string> files_map;
    for (const auto& m : *members) {
        static const std::set<std::string> wanted = {"info/index.json", "info/paths.json", "info/files",
                                                     "info/about.json", "info/run_exports.json"};
        if (!wanted.count(m.path)) continue;
        auto text = archive::read_package_member(pkg, m.path);
        if (!text) return unexpected(text.error());
        files_map[m.path] = std::move(*text);
    }
    const auto* files = &files_map;
    json out = json::object();
    out["file"] = pkg.filename().string();
    auto parse = [&](const std::string& name, json& into) -> Result<void> {
        auto it = files->find(name);
        if (it == files->end()) return {};
        if (types::json_too_deep(it->second))
            return fail(SourceLoc{pkg.string()}, name + " is nested more than " + std::to_string(types::kMaxJsonDepth) +
                                                     " levels deep");
        try {
            into = json::parse(it->second);
        } catch (const std::exception& e) {
            return fail(SourceLoc{pkg.string()}, name + " is not valid JSON: " + e.what());
        }
        return {};
    };
    if (!files->count("info/index.json")) return fail(SourceLoc{pkg.string()}, "package has no info/index.json");
    json index, paths, about = json::object(), run_exports = json::object();
    if (auto r = parse("info/index.json", index); !r) return unexpected(r.error());
    if (auto r = parse("info/paths.json", paths); !r) return unexpected(r.error());
    if (auto r = parse("info/about.json", about); !r) return unexpected(r.error());
    if (auto r = parse("info/run_exports.json", run_exports); !r) return unexpected(r.error());
    // What format_inspection() reads is checked here, so a hostile package is
    // an input error naming the file and field, not an exception there.
    if (auto rec = types::PackageRecord::from_json(index, pkg.string() + ": info/index.json"); !rec)
        return unexpected(rec.error());
    if (files->count("info/paths.json"))
        if (auto pj = types::PathsJson::parse(files->at("info/paths.json"), pkg.string() + ": info/paths.json"); !pj)
            return unexpected(pj.error());
    if (!about.is_object()) about = json::object();
    if (auto summary = types::JsonFields(about, pkg.string() + ": info/about.json").string("summary"); !summary)
        return unexpected(summary.error());
    out["index"] = index;
    out["about"] = about;
    out["run_exports"] = run_exports;
    if (paths.is_object() && paths.contains("paths")) {
        out["paths"] = paths["paths"];
    } else {
        out["paths"] = json::array();
        auto it = files->find("info/files");
        if (it != files->end())
            for (const auto& line : str::split_lines(it->second))
                if (!line.empty()) out["paths"].push_back({{"_path", line}});
    }
    return out;
}

namespace {

// A value as text: a string as it is, anything else as JSON. The metadata is
// the package's: any field may have any type.
std::string text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string field(const json& o, const char* key, const std::string& otherwise) {
    return o.is_object() && o.contains(key) ? text(o.at(key)) : otherwise;
}

}  // namespace

std::string format_inspection(const json& j) {
    std::ostringstream os;
    os << field(j, "file", "") << "\n";
    const json& idx = j.at("index");
    for (const auto& [k, v] : idx.items()) {
        if (v.is_array()) {
            os << "  " << k << ":";
            if (v.empty()) os << " (none)";
            os << "\n";
            for (const auto& d : v) os << "    - " << text(d) << "\n";
        } else {
            os << "  " << k << ": " << text(v) << "\n";
        }
    }
    if (j.contains("about") && j["about"].is_object() && j["about"].contains("summary"))
        os << "  summary: " << text(j["about"]["summary"]) << "\n";
    const json& paths = j.at("paths");
    os << "files (" << paths.size() << "):\n";
    for (const auto& p : paths) {
        os << "  " << field(p, "_path", "");
        std::string type = field(p, "path_type", "hardlink");
        if (type != "hardlink") os << "  [" << type << "]";
        if (p.is_object() && p.contains("prefix_placeholder")) os << "  [prefix " << field(p, "file_mode", "text") << "]";
        os << "\n";
    }
    return os.str();
}

}  // namespace sf::package
