#include "types/package_record.hpp"

namespace sf::types {
namespace {

using json = nlohmann::json;

Unexpected<Error> bad(std::string_view what, std::string_view why) {
    return fail(std::string(what) + ": " + std::string(why));
}

// Optional string field: absent or null gives "", anything but a string fails.
Result<std::string> opt_string(const json& j, const char* key, std::string_view what) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::string{};
    if (!it->is_string()) return bad(what, std::string("'") + key + "' must be a string");
    return it->get<std::string>();
}

Result<std::vector<std::string>> opt_list(const json& j, const char* key, std::string_view what) {
    std::vector<std::string> out;
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return out;
    if (it->is_string()) {  // track_features is often a space/comma separated string
        std::string s = it->get<std::string>();
        std::string cur;
        for (char c : s) {
            if (c == ' ' || c == ',') {
                if (!cur.empty()) out.push_back(cur);
                cur.clear();
            } else {
                cur += c;
            }
        }
        if (!cur.empty()) out.push_back(cur);
        return out;
    }
    if (!it->is_array()) return bad(what, std::string("'") + key + "' must be a list of strings");
    for (const auto& e : *it) {
        if (!e.is_string()) return bad(what, std::string("'") + key + "' must be a list of strings");
        out.push_back(e.get<std::string>());
    }
    return out;
}

}  // namespace

Result<PackageRecord> PackageRecord::from_json(const json& j, std::string_view what) {
    if (!j.is_object()) return bad(what, "a package record must be a JSON object");
    PackageRecord r;
    r.raw = j;
    for (const char* key : {"name", "version", "build"}) {
        auto it = j.find(key);
        if (it == j.end() || !it->is_string() || it->get<std::string>().empty())
            return bad(what, std::string("missing or empty '") + key + "'");
    }
    r.name = j["name"].get<std::string>();
    auto v = Version::parse(j["version"].get<std::string>());
    if (!v) return bad(what, v.error().message);
    r.version = *v;
    r.build = j["build"].get<std::string>();
    if (auto it = j.find("build_number"); it != j.end()) {
        if (!it->is_number_integer()) return bad(what, "'build_number' must be an integer");
        r.build_number = it->get<std::int64_t>();
    }
    auto get_s = [&](const char* key, std::string& dst) -> Result<void> {
        auto s = opt_string(j, key, what);
        if (!s) return Unexpected<Error>{s.error()};
        dst = *s;
        return {};
    };
    for (auto [key, dst] : std::initializer_list<std::pair<const char*, std::string*>>{
             {"subdir", &r.subdir}, {"arch", &r.arch}, {"platform", &r.platform}, {"md5", &r.md5},
             {"sha256", &r.sha256}, {"license", &r.license}, {"license_family", &r.license_family},
             {"fn", &r.fn}, {"url", &r.url}, {"channel", &r.channel}}) {
        if (auto ok = get_s(key, *dst); !ok) return Unexpected<Error>{ok.error()};
    }
    if (auto it = j.find("noarch"); it != j.end() && !it->is_null()) {
        if (it->is_string()) r.noarch = it->get<std::string>();
        else if (it->is_boolean()) r.noarch = it->get<bool>() ? "generic" : "";  // legacy `noarch: true`
        else return bad(what, "'noarch' must be a string");
    }
    for (auto [key, dst] : std::initializer_list<std::pair<const char*, std::vector<std::string>*>>{
             {"depends", &r.depends}, {"constrains", &r.constrains}, {"track_features", &r.track_features}}) {
        auto l = opt_list(j, key, what);
        if (!l) return Unexpected<Error>{l.error()};
        *dst = std::move(*l);
    }
    if (auto it = j.find("size"); it != j.end() && !it->is_null()) {
        if (!it->is_number_unsigned() && !it->is_number_integer()) return bad(what, "'size' must be an integer");
        r.size = it->get<std::uint64_t>();
    }
    if (auto it = j.find("timestamp"); it != j.end() && !it->is_null()) {
        if (!it->is_number()) return bad(what, "'timestamp' must be a number");
        r.timestamp = it->get<std::int64_t>();
    }
    return r;
}

json PackageRecord::to_json() const {
    json j = raw.is_object() ? raw : json::object();
    j["name"] = name;
    j["version"] = version.str();
    j["build"] = build;
    j["build_number"] = build_number;
    j["depends"] = depends;
    if (!constrains.empty() || j.contains("constrains")) j["constrains"] = constrains;
    auto set_s = [&](const char* key, const std::string& v) {
        if (!v.empty()) j[key] = v;
    };
    set_s("subdir", subdir);
    set_s("noarch", noarch);
    set_s("arch", arch);
    set_s("platform", platform);
    set_s("md5", md5);
    set_s("sha256", sha256);
    set_s("license", license);
    set_s("license_family", license_family);
    set_s("fn", fn);
    set_s("url", url);
    set_s("channel", channel);
    if (size) j["size"] = *size;
    if (timestamp) j["timestamp"] = *timestamp;
    if (!track_features.empty()) {
        std::string tf;
        for (const auto& t : track_features) tf += (tf.empty() ? "" : " ") + t;
        j["track_features"] = tf;
    }
    return j;
}

std::string PackageRecord::dist_name() const { return name + "-" + version.str() + "-" + build; }

Result<RepoData> RepoData::parse(std::string_view text, std::string_view source) {
    json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return bad(source, "not a valid JSON object");
    RepoData rd;
    if (auto it = j.find("info"); it != j.end() && it->is_object()) {
        if (auto s = it->find("subdir"); s != it->end() && s->is_string()) rd.subdir = s->get<std::string>();
    }
    for (const char* section : {"packages", "packages.conda"}) {
        auto it = j.find(section);
        if (it == j.end() || it->is_null()) continue;
        if (!it->is_object()) return bad(source, std::string("'") + section + "' must be an object");
        for (const auto& [fn, rec] : it->items()) {
            auto r = PackageRecord::from_json(rec, std::string(source) + ": " + fn);
            if (!r) return Unexpected<Error>{r.error()};
            r->fn = fn;
            if (r->subdir.empty()) r->subdir = rd.subdir;
            rd.packages.push_back(std::move(*r));
        }
    }
    return rd;
}

std::string_view to_string(PathType t) {
    switch (t) {
        case PathType::hardlink: return "hardlink";
        case PathType::softlink: return "softlink";
        case PathType::directory: return "directory";
    }
    return "hardlink";
}

std::string_view to_string(FileMode m) { return m == FileMode::binary ? "binary" : "text"; }

Result<PathsJson> PathsJson::parse(std::string_view text, std::string_view source) {
    json j = json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return bad(source, "not a valid JSON object");
    PathsJson out;
    if (auto it = j.find("paths_version"); it != j.end() && it->is_number_integer())
        out.paths_version = it->get<int>();
    auto it = j.find("paths");
    if (it == j.end() || !it->is_array()) return bad(source, "missing 'paths' list");
    for (const auto& e : *it) {
        if (!e.is_object() || !e.contains("_path") || !e["_path"].is_string())
            return bad(source, "every entry needs a string '_path'");
        PathEntry p;
        p.path = e["_path"].get<std::string>();
        std::string type = e.value("path_type", std::string("hardlink"));
        if (type == "hardlink") p.type = PathType::hardlink;
        else if (type == "softlink") p.type = PathType::softlink;
        else if (type == "directory") p.type = PathType::directory;
        else return bad(source, p.path + ": unknown path_type '" + type + "'");
        if (auto s = e.find("sha256"); s != e.end() && s->is_string()) p.sha256 = s->get<std::string>();
        if (auto s = e.find("size_in_bytes"); s != e.end() && s->is_number()) p.size = s->get<std::uint64_t>();
        if (auto s = e.find("prefix_placeholder"); s != e.end() && s->is_string())
            p.prefix_placeholder = s->get<std::string>();
        std::string mode = e.value("file_mode", std::string("text"));
        if (mode == "binary") p.file_mode = FileMode::binary;
        else if (mode == "text") p.file_mode = FileMode::text;
        else return bad(source, p.path + ": unknown file_mode '" + mode + "'");
        if (auto s = e.find("no_link"); s != e.end() && s->is_boolean()) p.no_link = s->get<bool>();
        out.paths.push_back(std::move(p));
    }
    return out;
}

json PathsJson::to_json() const {
    json arr = json::array();
    for (const auto& p : paths) {
        json e = {{"_path", p.path}, {"path_type", to_string(p.type)}};
        if (p.type != PathType::directory) {
            e["sha256"] = p.sha256.empty() ? json(nullptr) : json(p.sha256);
            e["size_in_bytes"] = p.size ? json(*p.size) : json(nullptr);
        }
        if (!p.prefix_placeholder.empty()) {
            e["prefix_placeholder"] = p.prefix_placeholder;
            e["file_mode"] = to_string(p.file_mode);
        }
        if (p.no_link) e["no_link"] = true;
        arr.push_back(std::move(e));
    }
    return {{"paths", arr}, {"paths_version", paths_version}};
}

}  // namespace sf::types
