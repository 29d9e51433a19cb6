#include "render/format.hpp"

#include <algorithm>

#include <yaml-cpp/yaml.h>

#include "util/strings.hpp"

namespace sf::render {

nlohmann::ordered_json to_json(const RenderedOutput& o) {
    using J = nlohmann::ordered_json;
    J j;
    j["name"] = o.name;
    j["version"] = o.version;
    j["build"] = o.build_string;
    j["build_number"] = o.build_number;
    if (o.noarch != types::NoArch::none) j["noarch"] = types::to_string(o.noarch);
    auto put = [](J& obj, const char* k, const std::vector<std::string>& v) {
        if (!v.empty()) obj[k] = v;
    };
    auto put_deps = [&](J& obj, const char* k, const std::vector<types::Dependency>& v) {
        put(obj, k, types::dependency_strings(v));
    };
    auto reqs_json = [&](const Requirements& r) {
        J reqs = J::object();
        put_deps(reqs, "build", r.build);
        put_deps(reqs, "host", r.host);
        put_deps(reqs, "run", r.run);
        put_deps(reqs, "run_constrained", r.run_constrained);
        return reqs;
    };
    j["requirements"] = reqs_json(o.requirements);
    j["nonfinal_requirements"] = reqs_json(o.nonfinal_requirements);
    J re = J::object();
    put_deps(re, "weak", o.run_exports.weak);
    put_deps(re, "strong", o.run_exports.strong);
    put_deps(re, "noarch", o.run_exports.noarch);
    put_deps(re, "weak_constrains", o.run_exports.weak_constrains);
    put_deps(re, "strong_constrains", o.run_exports.strong_constrains);
    if (!re.empty()) j["run_exports"] = re;
    J test = J::object();
    put_deps(test, "requires", o.test.requires_);
    put(test, "imports", o.test.imports);
    put(test, "commands", o.test.commands);
    put(test, "files", o.test.files);
    if (!test.empty()) j["test"] = test;
    if (!o.script.empty()) j["script"] = o.script;
    J used = J::object();
    for (const auto& [k, v] : o.used) used[k] = v;
    j["used_variant"] = used;
    j["hash_input"] = o.hash_input;
    j["staging_variant"] = o.top_variant;
    return j;
}

nlohmann::ordered_json to_json(const RenderedRecipe& r) {
    nlohmann::ordered_json j;
    j["recipe"] = r.name;
    j["version"] = r.version;
    j["subdir"] = r.platform.name();
    j["staging_builds"] = r.tops.size();
    j["outputs"] = nlohmann::ordered_json::array();
    for (const auto& o : r.outputs) j["outputs"].push_back(to_json(o));
    return j;
}

namespace {

void emit_list(YAML::Emitter& e, const char* key, const std::vector<std::string>& v) {
    if (v.empty()) return;
    e << YAML::Key << key << YAML::Value << YAML::BeginSeq;
    for (const auto& s : v) e << s;
    e << YAML::EndSeq;
}

void emit_list(YAML::Emitter& e, const char* key, const std::vector<types::Dependency>& v) {
    emit_list(e, key, types::dependency_strings(v));
}

}  // namespace

std::string output_yaml(const RenderedOutput& o) {
    YAML::Emitter e;
    e << YAML::BeginMap;
    e << YAML::Key << "package" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << o.name;
    e << YAML::Key << "version" << YAML::Value << o.version;
    e << YAML::EndMap;
    e << YAML::Key << "build" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "number" << YAML::Value << o.build_number;
    e << YAML::Key << "string" << YAML::Value << o.build_string;
    if (o.noarch != types::NoArch::none)
        e << YAML::Key << "noarch" << YAML::Value << std::string(types::to_string(o.noarch));
    if (!o.run_exports.empty()) {
        e << YAML::Key << "run_exports" << YAML::Value << YAML::BeginMap;
        emit_list(e, "weak", o.run_exports.weak);
        emit_list(e, "strong", o.run_exports.strong);
        emit_list(e, "noarch", o.run_exports.noarch);
        emit_list(e, "weak_constrains", o.run_exports.weak_constrains);
        emit_list(e, "strong_constrains", o.run_exports.strong_constrains);
        e << YAML::EndMap;
    }
    e << YAML::EndMap;
    const auto& rq = o.requirements;
    if (!rq.build.empty() || !rq.host.empty() || !rq.run.empty() || !rq.run_constrained.empty()) {
        e << YAML::Key << "requirements" << YAML::Value << YAML::BeginMap;
        emit_list(e, "build", rq.build);
        emit_list(e, "host", rq.host);
        emit_list(e, "run", rq.run);
        emit_list(e, "run_constrained", rq.run_constrained);
        e << YAML::EndMap;
    }
    if (!o.test.empty() || !o.test.requires_.empty()) {
        e << YAML::Key << "test" << YAML::Value << YAML::BeginMap;
        emit_list(e, "requires", o.test.requires_);
        emit_list(e, "imports", o.test.imports);
        emit_list(e, "commands", o.test.commands);
        emit_list(e, "files", o.test.files);
        e << YAML::EndMap;
    }
    e << YAML::EndMap;
    return e.c_str();
}

std::string to_yaml(const RenderedRecipe& r) {
    std::string out;
    for (const auto& o : r.outputs) {
        std::vector<std::string> used;
        for (const auto& [k, v] : o.used) used.push_back(k + "=" + v);
        out += "# " + o.dist() + "  [" + str::join(used, ", ") + "]\n";
        out += output_yaml(o);
        out += "\n---\n";
    }
    return out;
}

std::string builds_tsv(const RenderedRecipe& r) {
    std::vector<std::string> lines;
    for (const auto& o : r.outputs) lines.push_back(o.name + "\t" + o.version + "\t" + o.build_string);
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
}

}  // namespace sf::render

namespace sf::render {
namespace {

std::string why_used(const RenderedRecipe& r, const std::string& key) {
    if (r.format == RecipeFormat::recipe_yaml) {
        auto it = r.key_uses.find(key);
        if (key == "target_platform" || key == "channel_targets" || key == "channel_sources")
            return "always used (rattler-build rule)";
        return it != r.key_uses.end() ? it->second.str() : "use_keys or the variant of a staging output";
    }
    if (key == "target_platform") return "always used (conda-build rule)";
    if (key == "channel_targets") return "always used (conda-build rule)";
    auto it = r.key_uses.find(key);
    std::string where = it != r.key_uses.end() ? it->second.str() : "declared (force_use_keys / extra/splitforge)";
    return where;
}

}  // namespace

std::vector<std::string> unused_keys(const RenderedRecipe& r) {
    std::vector<std::string> unused;
    if (!r.variants.empty())
        for (const auto& [k, v] : r.variants.front().values)
            if (std::find(r.used_keys.begin(), r.used_keys.end(), k) == r.used_keys.end()) unused.push_back(k);
    return unused;
}

std::string variants_report(const RenderedRecipe& r, ReportDetail detail) {
    std::string out;
    out += r.name + " " + r.version + " (" + r.platform.name() + "): " + std::to_string(r.variants.size()) +
           " variants in the matrix, " + std::to_string(r.tops.size()) + " staging build(s), " +
           std::to_string(r.outputs.size()) + " package(s)\n\n";
    // Keys the staging build uses but that take one value only do not split anything.
    std::vector<std::string> varying;
    for (const auto& k : r.staging_keys)
        for (const auto& top : r.tops)
            if (top.variant.value_or(k, "") != r.tops.front().variant.value_or(k, "")) {
                varying.push_back(k);
                break;
            }
    out += "staging builds split by: " + (varying.empty() ? std::string("(nothing)") : str::join(varying, ", ")) + "\n";
    for (size_t i = 0; i < r.tops.size(); ++i) {
        std::vector<std::string> kv;
        for (const auto& k : varying) kv.push_back(k + "=" + r.tops[i].variant.value_or(k, "?"));
        out += "  [" + std::to_string(i + 1) + "] " + (kv.empty() ? std::string("(single)") : str::join(kv, " ")) + "\n";
        for (const auto& o : r.outputs) {
            if (o.top_variant != static_cast<int>(i)) continue;
            out += "      " + o.dist() + "\n";
        }
    }
    out += "\nused keys (first use):\n";
    size_t width = 0;
    for (const auto& k : r.used_keys) width = std::max(width, k.size());
    for (const auto& k : r.used_keys) {
        bool staging = std::find(r.staging_keys.begin(), r.staging_keys.end(), k) != r.staging_keys.end();
        out += "  " + k + std::string(width - k.size() + 2, ' ') + why_used(r, k) +
               (staging ? "  [staging]" : "") + "\n";
    }
    // A global pinning (-e) brings hundreds of keys no recipe uses: a count
    // and the first few, unless asked for all.
    constexpr size_t kShown = 5, kAll = 10;
    std::vector<std::string> unused = unused_keys(r);
    if (unused.empty()) return out + "\nunused keys: (none)\n";
    if (detail == ReportDetail::full || unused.size() <= kAll) return out + "\nunused keys: " + str::join(unused, ", ") + "\n";
    std::vector<std::string> first(unused.begin(), unused.begin() + kShown);
    return out + "\nunused keys: " + std::to_string(unused.size()) + " (" + str::join(first, ", ") +
           ", ...; --verbose or --json lists them all)\n";
}

nlohmann::ordered_json variants_json(const RenderedRecipe& r) {
    using J = nlohmann::ordered_json;
    J j;
    j["recipe"] = r.name;
    j["subdir"] = r.platform.name();
    j["staging_keys"] = r.staging_keys;
    j["staging_builds"] = J::array();
    for (size_t i = 0; i < r.tops.size(); ++i) {
        J sb;
        for (const auto& k : r.staging_keys) sb["variant"][k] = r.tops[i].variant.value_or(k, "");
        sb["packages"] = J::array();
        for (const auto& o : r.outputs)
            if (o.top_variant == static_cast<int>(i)) sb["packages"].push_back(o.dist());
        j["staging_builds"].push_back(sb);
    }
    J used = J::object();
    for (const auto& k : r.used_keys) used[k] = why_used(r, k);
    j["used_keys"] = used;
    j["unused_keys"] = unused_keys(r);
    j["matrix_size"] = r.variants.size();
    return j;
}

}  // namespace sf::render
