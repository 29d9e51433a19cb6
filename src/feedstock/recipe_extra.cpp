#include "feedstock/recipe_extra.hpp"

#include "feedstock/ci_job.hpp"
#include "recipe/selectors.hpp"
#include "util/strings.hpp"

namespace sf::feedstock {

Result<YAML::Node> recipe_extra(const recipe::RawRecipe& raw, const std::string& subdir,
                                const std::map<std::string, std::string>& variant) {
    auto ns = recipe::selector_namespace(subdir, subdir, variant);
    // The render already reported (or, under --strict, refused) what these
    // selectors hold; here they only pick lines.
    Diagnostics quiet;
    auto sel = recipe::apply_selectors(raw.lines, ns, raw.meta_file, nullptr, nullptr, &quiet);
    if (!sel) return unexpected(sel.error());
    std::string block;
    bool in = false;
    for (const auto& line : str::split_lines(sel->text)) {
        bool top = !line.empty() && line[0] != ' ' && line[0] != '#';
        if (top) in = str::starts_with(line, "extra:");
        if (in) block += line + "\n";
    }
    if (block.empty()) return YAML::Node();
    try {
        YAML::Node n = YAML::Load(block);
        if (n.IsMap() && n["extra"] && n["extra"].IsMap()) return n["extra"];
    } catch (const YAML::Exception&) {
    }
    return YAML::Node();
}

Result<CiSettings> read_ci_settings(const recipe::RawRecipe& raw, const std::string& subdir,
                                    const std::map<std::string, std::string>& variant) {
    CiSettings ci;
    auto extra = recipe_extra(raw, subdir, variant);
    if (!extra) return unexpected(extra.error());
    if (!extra->IsMap() || !(*extra)["splitforge"] || !(*extra)["splitforge"].IsMap()) return ci;
    YAML::Node sf = (*extra)["splitforge"];
    auto bad = [&](const std::string& what) {
        return fail(SourceLoc{raw.meta_file}, "extra/splitforge/" + what,
                    "write e.g. `runners: {linux-64: ubuntu-latest, default: ubuntu-latest}` and "
                    "`timeout_minutes: 360`");
    };
    try {
        if (YAML::Node r = sf["runners"]) {
            if (r.IsScalar())
                ci.runners["default"] = r.as<std::string>();
            else if (r.IsMap())
                for (const auto& kv : r) ci.runners[kv.first.as<std::string>()] = kv.second.as<std::string>();
            else
                return bad("runners must be a label or a mapping of platform to label");
        }
        if (YAML::Node t = sf["timeout_minutes"]) {
            if (t.IsScalar())
                ci.timeouts["default"] = t.as<int>();
            else if (t.IsMap())
                for (const auto& kv : t) ci.timeouts[kv.first.as<std::string>()] = kv.second.as<int>();
            else
                return bad("timeout_minutes must be a number or a mapping of platform to minutes");
        }
    } catch (const YAML::Exception&) {
        return bad("runners / timeout_minutes: labels must be strings, timeouts whole minutes");
    }
    return ci;
}

namespace {
template <class V>
const V* lookup(const std::map<std::string, V>& m, const std::string& platform, CiSettings::Gpu gpu) {
    if (gpu == CiSettings::Gpu::cuda)
        if (auto it = m.find(platform + "-cuda"); it != m.end()) return &it->second;
    if (auto it = m.find(platform); it != m.end()) return &it->second;
    if (auto it = m.find("default"); it != m.end()) return &it->second;
    return nullptr;
}
}  // namespace

std::string CiSettings::runner_for(const std::string& platform, Gpu gpu) const {
    const std::string* r = lookup(runners, platform, gpu);
    return r ? *r : default_runner(platform);
}

int CiSettings::timeout_for(const std::string& platform, Gpu gpu) const {
    const int* t = lookup(timeouts, platform, gpu);
    return t ? *t : kDefaultTimeoutMinutes;
}

}  // namespace sf::feedstock
