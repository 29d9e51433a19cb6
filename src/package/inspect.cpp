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

std::string format_inspection(const json& j) {
    std::ostringstream os;
    os << j.value("file", "") << "\n";
    const json& idx = j.at("index");
    for (const auto& [k, v] : idx.items()) {
        if (v.is_array()) {
            os << "  " << k << ":";
            if (v.empty()) os << " (none)";
            os << "\n";
            for (const auto& d : v) os << "    - " << (d.is_string() ? d.get<std::string>() : d.dump()) << "\n";
        } else {
            os << "  " << k << ": " << (v.is_string() ? v.get<std::string>() : v.dump()) << "\n";
        }
    }
    if (j.contains("about") && j["about"].contains("summary") && j["about"]["summary"].is_string())
        os << "  summary: " << j["about"]["summary"].get<std::string>() << "\n";
    const json& paths = j.at("paths");
    os << "files (" << paths.size() << "):\n";
    for (const auto& p : paths) {
        os << "  " << p.value("_path", "");
        std::string type = p.value("path_type", "hardlink");
        if (type != "hardlink") os << "  [" << type << "]";
        if (p.contains("prefix_placeholder")) os << "  [prefix " << p.value("file_mode", "text") << "]";
        os << "\n";
    }
    return os.str();
}

}  // namespace sf::package
