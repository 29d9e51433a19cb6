#include "package/meta.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/rewrap.hpp"
#include "types/identifiers.hpp"
#include "types/json_fields.hpp"
#include "util/timestamp.hpp"

namespace sf::package {

Result<void> validate(const PackageMeta& m) {
    for (auto [field, check, value] :
         {std::tuple{"name", &types::check_package_name, &m.name}, {"version", types::check_version, &m.version},
          {"build", types::check_build_string, &m.build}})
        if (auto ok = check(*value); !ok) return rewrap(ok.error(), std::string(field) + ": ");
    if (m.build_number < 0) return fail("build_number must not be negative");
    bool noarch = m.noarch != types::NoArch::none;
    if (noarch && !m.subdir.is_noarch())
        return fail("a noarch package must have subdir 'noarch' (got '" + m.subdir.name() + "')");
    if (!noarch && m.subdir.is_noarch())
        return fail("subdir 'noarch' needs noarch set", "set noarch to 'generic' or 'python'");
    return {};
}

std::int64_t resolved_timestamp(const PackageMeta& m) {
    return m.timestamp ? *m.timestamp : timestamp::reproducible({}) * 1000;
}

namespace {

// Reads fields of one object of the --meta file, keeping the first error.
// Types are checked by types::JsonFields: a wrong one is an error naming the
// file and the field, never a nlohmann exception.
struct Reader {
    const nlohmann::json& j;
    std::string origin;
    std::optional<Error> err;

    types::JsonFields fields() const { return {j, origin, "fix the field in the --meta file"}; }
    template <class T, class U>
    void take(Result<T> r, U& out) {
        if (err) return;
        if (!r) err = r.error();
        else out = std::move(*r);
    }
    void get(const char* key, std::string& out) { take(fields().string(key, out), out); }
    void get(const char* key, std::vector<std::string>& out) {
        if (j.contains(key)) take(fields().strings(key), out);
    }
    void get(const char* key, std::int64_t& out) {
        auto v = fields().integer(key);
        if (!err && !v) err = v.error();
        else if (!err && *v) out = **v;
    }
    void get(const char* key, int& out) {
        std::int64_t v = out;
        get(key, v);
        if (!err && (v < INT32_MIN || v > INT32_MAX)) err = fields().wrong_type(key, "a 32-bit integer").error;
        if (!err) out = static_cast<int>(v);
    }
    void get(const char* key, nlohmann::json& out) {
        if (!err && j.contains(key)) out = j.at(key);
    }
    void files(const char* key, std::vector<ExtraFile>& out, const nlohmann::json& from) {
        if (err || !from.contains(key)) return;
        const auto& arr = from.at(key);
        if (!arr.is_array()) {
            err = Error{SourceLoc{origin}, std::string("field '") + key + "' must be a list", {}};
            return;
        }
        for (const auto& f : arr) {
            ExtraFile x;
            if (f.is_string()) {  // a plain path: copied under its file name
                x.source = f.get<std::string>();
                x.dest = x.source.filename().string();
            } else if (f.is_object() && f.contains("dest")) {
                Reader e{f, origin + ": " + key, {}};
                std::string source;
                e.get("dest", x.dest);
                e.get("source", source);
                e.get("content", x.content);
                if (e.err) {
                    err = e.err;
                    return;
                }
                x.source = source;
            } else {
                err = Error{SourceLoc{origin},
                            std::string("entries of '") + key + "' are paths or {dest, source|content}", {}};
                return;
            }
            out.push_back(std::move(x));
        }
    }
};

}  // namespace

Result<PackageMeta> meta_from_json(const nlohmann::json& j, const std::string& origin) {
    if (!j.is_object()) return fail(SourceLoc{origin}, "package metadata must be a JSON object");
    static const std::vector<std::string> known = {
        "name", "version", "build", "build_number", "depends", "constrains", "track_features", "subdir",
        "noarch", "license", "license_family", "summary", "description", "home", "dev_url", "doc_url",
        "license_file", "extra", "run_exports", "hash_input", "test", "recipe_files", "license_files",
        "timestamp"};
    for (const auto& [k, v] : j.items()) {
        if (std::find(known.begin(), known.end(), k) == known.end())
            return fail(SourceLoc{origin}, "unknown field '" + k + "'",
                        "known fields: name, version, build, build_number, depends, constrains, ...");
    }
    PackageMeta m;
    Reader r{j, origin, {}};
    r.get("name", m.name);
    r.get("version", m.version);
    r.get("build", m.build);
    r.get("build_number", m.build_number);
    r.get("depends", m.depends);
    r.get("constrains", m.constrains);
    r.get("track_features", m.track_features);
    std::string subdir;
    r.get("subdir", subdir);
    if (!subdir.empty() && !r.err) {
        if (auto p = types::Platform::parse(subdir))
            m.subdir = *p;
        else
            r.err = rewrap(p.error(), SourceLoc{origin}, "field 'subdir': ").error;
    }
    std::string noarch;
    r.get("noarch", noarch);
    if (!r.err) {
        if (auto n = types::parse_noarch(noarch))
            m.noarch = *n;
        else
            r.err = rewrap(n.error(), SourceLoc{origin}, "field 'noarch': ").error;
    }
    r.get("license", m.license);
    r.get("license_family", m.license_family);
    r.get("summary", m.summary);
    r.get("description", m.description);
    r.get("home", m.home);
    r.get("dev_url", m.dev_url);
    r.get("doc_url", m.doc_url);
    r.get("license_file", m.license_file_names);
    r.get("extra", m.extra);
    r.get("hash_input", m.hash_input);
    if (j.contains("timestamp")) {
        std::int64_t t = 0;
        r.get("timestamp", t);
        m.timestamp = t;
    }
    if (j.contains("run_exports")) {
        const auto& re = j.at("run_exports");
        if (re.is_array()) {  // conda-build shorthand: a list means weak
            r.get("run_exports", m.run_exports.weak);
        } else if (re.is_object()) {
            Reader rr{re, origin, {}};
            rr.get("weak", m.run_exports.weak);
            rr.get("strong", m.run_exports.strong);
            rr.get("noarch", m.run_exports.noarch);
            rr.get("weak_constrains", m.run_exports.weak_constrains);
            rr.get("strong_constrains", m.run_exports.strong_constrains);
            if (rr.err) r.err = rr.err;
        }
    }
    if (j.contains("test") && j.at("test").is_object()) {
        const auto& t = j.at("test");
        Reader tr{t, origin, {}};
        tr.get("commands", m.test.commands);
        tr.get("requires", m.test.requires_);
        tr.files("files", m.test.files, t);
        if (tr.err) r.err = tr.err;
    }
    r.files("recipe_files", m.recipe_files, j);
    r.files("license_files", m.license_files, j);
    if (r.err) return unexpected(*r.err);
    if (auto v = validate(m); !v) {
        Error e = v.error();
        e.loc = SourceLoc{origin};
        return unexpected(e);
    }
    return m;
}

}  // namespace sf::package
