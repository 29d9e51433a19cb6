#include "types/package_record.hpp"

#include "types/identifiers.hpp"
#include "types/json_fields.hpp"

namespace sf::types {
namespace {

using json = nlohmann::json;

Unexpected<Error> bad(std::string_view what, std::string_view why) {
    return fail(std::string(what) + ": " + std::string(why));
}

// An identifier field checked by its rule; the error names the source and field.
Result<std::string> identifier(const JsonFields& f, const char* key, Result<void> (*check)(std::string_view)) {
    auto s = f.required_string(key);
    if (!s) return s;
    if (auto ok = check(*s); !ok)
        return fail(f.what() + ": '" + key + "': " + ok.error().message, ok.error().hint);
    return s;
}

// track_features is a list or, as conda writes it, one space/comma separated string.
Result<std::vector<std::string>> features(const JsonFields& f, const json& j) {
    auto it = j.find("track_features");
    if (it == j.end() || !it->is_string()) return f.strings("track_features");
    std::vector<std::string> out;
    std::string cur;
    for (char c : it->get<std::string>()) {
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

// "python", "generic", legacy `noarch: true` (generic) and `noarch_python: true`.
Result<std::string> noarch_of(const JsonFields& f, const json& j) {
    auto legacy = f.boolean("noarch_python");
    if (!legacy) return Unexpected<Error>{legacy.error()};
    auto it = j.find("noarch");
    if (it == j.end() || it->is_null()) return std::string(legacy->value_or(false) ? "python" : "");
    if (it->is_boolean()) return std::string(it->get<bool>() ? "generic" : "");
    if (!it->is_string()) return f.wrong_type("noarch", "'python' or 'generic'");
    std::string s = it->get<std::string>();
    if (s.empty() || s == "python" || s == "generic") return s;
    return fail(f.what() + ": 'noarch': invalid noarch '" + printable(s) + "'", "use 'python' or 'generic'");
}

Result<void> read_strings(const JsonFields& f, PackageRecord& r) {
    for (auto [key, dst] : std::initializer_list<std::pair<const char*, std::string*>>{
             {"arch", &r.arch}, {"platform", &r.platform}, {"md5", &r.md5}, {"sha256", &r.sha256},
             {"license", &r.license}, {"license_family", &r.license_family}, {"fn", &r.fn}, {"url", &r.url},
             {"channel", &r.channel}}) {
        auto s = f.string(key);
        if (!s) return Unexpected<Error>{s.error()};
        *dst = std::move(*s);
    }
    for (auto [key, dst] : std::initializer_list<std::pair<const char*, std::vector<std::string>*>>{
             {"depends", &r.depends}, {"constrains", &r.constrains}}) {
        auto l = f.strings(key);
        if (!l) return Unexpected<Error>{l.error()};
        *dst = std::move(*l);
    }
    return {};
}

Result<void> read_numbers(const JsonFields& f, const json& j, PackageRecord& r) {
    auto bn = f.integer("build_number");
    if (!bn) return Unexpected<Error>{bn.error()};
    // conda's field takes any integer; rattler's (and so mamba's and pixi's)
    // is unsigned, so a negative one would break the user's other tools.
    if (bn->value_or(0) < 0) return f.wrong_type("build_number", "a non-negative integer");
    r.build_number = bn->value_or(0);
    auto size = f.unsigned_integer("size");
    if (!size) return Unexpected<Error>{size.error()};
    r.size = *size;
    // Old records carry float timestamps: any number is accepted.
    if (auto it = j.find("timestamp"); it != j.end() && !it->is_null()) {
        if (!it->is_number()) return f.wrong_type("timestamp", "a number");
        if (it->is_number_float()) {  // a cast of NaN or 1e300 to an integer is undefined
            double d = it->get<double>();
            if (!(d >= 0 && d < 9.2e18)) return f.wrong_type("timestamp", "a number of milliseconds since 1970");
            r.timestamp = static_cast<std::int64_t>(d);
        } else {
            r.timestamp = it->get<std::int64_t>();
        }
    }
    return {};
}

}  // namespace

Result<PackageRecord> PackageRecord::from_json(json j, std::string_view what) {
    if (!j.is_object()) return bad(what, "a package record must be a JSON object");
    JsonFields f(j, std::string(what));
    PackageRecord r;
    auto name = identifier(f, "name", check_package_name);
    if (!name) return Unexpected<Error>{name.error()};
    auto version = identifier(f, "version", check_version);
    if (!version) return Unexpected<Error>{version.error()};
    auto build = identifier(f, "build", check_build_string);
    if (!build) return Unexpected<Error>{build.error()};
    auto v = Version::parse(*version);
    if (!v) return bad(what, v.error().message);
    r.name = std::move(*name);
    r.version = std::move(*v);
    r.build = std::move(*build);
    auto subdir = f.string("subdir");
    if (!subdir) return Unexpected<Error>{subdir.error()};
    if (!subdir->empty())
        if (auto ok = check_subdir(*subdir); !ok)
            return fail(f.what() + ": 'subdir': " + ok.error().message, ok.error().hint);
    r.subdir = std::move(*subdir);
    auto noarch = noarch_of(f, j);
    if (!noarch) return Unexpected<Error>{noarch.error()};
    r.noarch = std::move(*noarch);
    if (auto ok = read_strings(f, r); !ok) return Unexpected<Error>{ok.error()};
    if (auto ok = read_numbers(f, j, r); !ok) return Unexpected<Error>{ok.error()};
    auto tf = features(f, j);
    if (!tf) return Unexpected<Error>{tf.error()};
    r.track_features = std::move(*tf);
    r.raw = std::move(j);
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

Result<RepoData> RepoData::parse(std::string_view text, std::string_view source, BadRecord bad_record) {
    if (json_too_deep(text)) return bad(source, "JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return bad(source, "not a valid JSON object");
    return from_json(std::move(j), source, bad_record);
}

Result<RepoData> RepoData::from_json(json j, std::string_view source, BadRecord bad_record) {
    if (!j.is_object()) return bad(source, "not a valid JSON object");
    RepoData rd;
    if (auto it = j.find("info"); it != j.end() && it->is_object()) {
        JsonFields info(*it, std::string(source) + ": info");
        auto subdir = info.string("subdir");
        if (!subdir) return Unexpected<Error>{subdir.error()};
        if (!subdir->empty())
            if (auto ok = check_subdir(*subdir); !ok)
                return fail(info.what() + ": 'subdir': " + ok.error().message, ok.error().hint);
        rd.subdir = std::move(*subdir);
        // conda and rattler read base_url from version 2 on; before, it is not the CEP's key.
        auto version = j.find("repodata_version");
        if (version != j.end() && version->is_number_integer() && version->get<long long>() >= 2)
            if (auto b = it->find("base_url"); b != it->end() && b->is_string()) rd.base_url = b->get<std::string>();
    }
    std::size_t records = 0;
    for (const char* section : {"packages", "packages.conda"})
        if (auto it = j.find(section); it != j.end() && it->is_object()) records += it->size();
    rd.packages.reserve(records);
    for (const char* section : {"packages", "packages.conda"}) {
        auto it = j.find(section);
        if (it == j.end() || it->is_null()) continue;
        if (!it->is_object()) return bad(source, std::string("'") + section + "' must be an object");
        for (auto& [fn, rec] : it->items()) {
            auto name = rec.find("name");  // end() for a record that is no object
            std::string named = name != rec.end() && name->is_string() ? name->get<std::string>() : std::string();
            auto r = PackageRecord::from_json(std::move(rec), std::string(source) + ": " + fn);
            if (!r && bad_record == BadRecord::fail) return Unexpected<Error>{r.error()};
            if (!r) {
                rd.skipped.push_back({std::move(named), r.error()});
                continue;
            }
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

namespace {

// One entry of paths.json; `f` names the file and the entry.
Result<PathEntry> path_entry(const json& e, const std::string& source) {
    if (!e.is_object()) return bad(source, "every entry of 'paths' must be an object");
    JsonFields f(e, source);
    auto path = f.required_string("_path");
    if (!path) return Unexpected<Error>{path.error()};
    PathEntry p;
    p.path = std::move(*path);
    JsonFields fe(e, source + ": " + printable(p.path));
    auto type = fe.string("path_type", "hardlink");
    if (!type) return Unexpected<Error>{type.error()};
    if (*type == "hardlink") p.type = PathType::hardlink;
    else if (*type == "softlink") p.type = PathType::softlink;
    else if (*type == "directory") p.type = PathType::directory;
    else return bad(fe.what(), "unknown path_type '" + printable(*type) + "'");
    auto mode = fe.string("file_mode", "text");
    if (!mode) return Unexpected<Error>{mode.error()};
    if (*mode == "binary") p.file_mode = FileMode::binary;
    else if (*mode == "text") p.file_mode = FileMode::text;
    else return bad(fe.what(), "unknown file_mode '" + printable(*mode) + "'");
    auto sha = fe.string("sha256");
    auto placeholder = fe.string("prefix_placeholder");
    auto size = fe.unsigned_integer("size_in_bytes");
    auto no_link = fe.boolean("no_link");
    if (!sha) return Unexpected<Error>{sha.error()};
    if (!placeholder) return Unexpected<Error>{placeholder.error()};
    if (!size) return Unexpected<Error>{size.error()};
    if (!no_link) return Unexpected<Error>{no_link.error()};
    p.sha256 = std::move(*sha);
    p.prefix_placeholder = std::move(*placeholder);
    p.size = *size;
    p.no_link = no_link->value_or(false);
    return p;
}

}  // namespace

Result<PathsJson> PathsJson::parse(std::string_view text, std::string_view source) {
    auto j = parse_json_object(text, source);
    if (!j) return Unexpected<Error>{j.error()};
    JsonFields f(*j, std::string(source));
    PathsJson out;
    auto version = f.integer("paths_version");
    if (!version) return Unexpected<Error>{version.error()};
    if (*version) out.paths_version = static_cast<int>(**version);
    auto it = j->find("paths");
    if (it == j->end() || !it->is_array()) return bad(source, "missing 'paths' list");
    for (const auto& e : *it) {
        auto p = path_entry(e, std::string(source));
        if (!p) return Unexpected<Error>{p.error()};
        out.paths.push_back(std::move(*p));
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
