#include "feedstock/recipe_extra.hpp"

#include <algorithm>
#include <functional>

#include "feedstock/ci_job.hpp"
#include "recipe/selectors.hpp"
#include "recipe/v1_recipe.hpp"
#include "util/duration.hpp"
#include "util/fs.hpp"
#include "types/platform.hpp"
#include "util/strings.hpp"

namespace sf::feedstock {

Result<YAML::Node> recipe_extra(const recipe::RawRecipe& raw, const std::string& subdir,
                                const std::map<std::string, std::string>& variant) {
    auto ns = recipe::selector_namespace(subdir, subdir, variant);
    if (!ns) return unexpected(ns.error());
    // The render already reported (or, under --strict, refused) what these
    // selectors hold; here they only pick lines.
    Diagnostics quiet;
    auto sel = recipe::apply_selectors(raw.lines, *ns, raw.meta_file, nullptr, nullptr, &quiet);
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

namespace {

const std::vector<std::string>& known_keys() {
    static const std::vector<std::string> keys = {"output_keys", "use_keys", "ignore_keys",
                                                  "runners", "timeout_minutes", "lint_skip",
                                                  "time_limit", "resume_jobs", "ci_setup",
                                                  "smoke", "smoke_script"};
    return keys;
}

// The line of `key:` in the recipe text at or after `from`, else `from`.
int line_of_key(const std::string& text, const std::string& key, int from) {
    auto lines = str::split_lines(text);
    for (size_t i = static_cast<size_t>(std::max(from, 1) - 1); i < lines.size(); ++i) {
        auto t = str::trim(lines[i]);
        if (str::starts_with(t, key + ":") || str::starts_with(t, "\"" + key + "\":")) return static_cast<int>(i) + 1;
    }
    return from;
}

std::string near(const std::string& name, const std::vector<std::string>& options) {
    std::string n = str::closest(name, options);
    return n.empty() ? std::string() : "did you mean '" + n + "'? ";
}

// "linux-64", "linux-64-cuda" or "default".
bool is_platform_key(const std::string& k, std::string& suggestion) {
    std::vector<std::string> names = {"default"};
    for (const auto& p : types::Platform::known()) {
        if (p == "noarch") continue;
        names.push_back(p);
        names.push_back(p + "-cuda");
    }
    if (std::find(names.begin(), names.end(), k) != names.end()) return true;
    suggestion = near(k, names);
    return false;
}

}  // namespace

namespace {

using ErrFn = std::function<Result<void>(const std::string&, const std::string&, const std::string&)>;

// time_limit (a duration, or a mapping of platform to one), resume_jobs (a
// whole number 1..20), ci_setup (a list of shell lines).
Result<void> validate_ci_key(const std::string& key, const YAML::Node& v, const ErrFn& err) {
    if (key == "resume_jobs") {
        int n = 0;
        if (!v.IsScalar() || !YAML::convert<int>::decode(v, n) || n < 1 || n > 20)
            return err(key, "resume_jobs: must be a whole number from 1 to 20", "e.g. `resume_jobs: 3`");
        return {};
    }
    if (key == "smoke" || key == "smoke_script") {
        bool ok = key == "smoke" ? v.IsSequence() && v.size() > 0 : v.IsScalar() && !v.Scalar().empty();
        if (ok && key == "smoke")
            for (const auto& e : v) ok = ok && e.IsScalar() && !e.Scalar().empty();
        if (ok && key == "smoke_script")
            ok = v.Scalar().front() != '/' && v.Scalar().find("..") == std::string::npos;
        if (!ok)
            return err(key, key == "smoke" ? "smoke: must be a list of match specs" : "smoke_script: must be a file in the recipe dir",
                       key == "smoke" ? "e.g. `smoke: [pytorch-cpu, python 3.12.*]`" : "e.g. `smoke_script: smoke_test.py`");
        return {};
    }
    if (key == "ci_setup") {
        bool ok = v.IsSequence() && v.size() > 0;
        for (const auto& e : v) ok = ok && e.IsScalar() && !e.Scalar().empty();
        if (!ok) return err(key, "ci_setup: must be a list of shell lines", "e.g. `ci_setup: [pip install splitforge]`");
        return {};
    }
    auto check = [&](const YAML::Node& x, const std::string& where) -> Result<void> {
        if (!x.IsScalar() || duration_minutes(x.Scalar()) <= 0)
            return err(key, where + ": '" + (x.IsScalar() ? x.Scalar() : std::string("?")) + "' is not a duration",
                       "write hours and minutes, e.g. `time_limit: 5h30m`");
        return {};
    };
    if (v.IsScalar()) return check(v, key);
    if (!v.IsMap()) return err(key, "time_limit: must be a duration or a mapping of platform to one", "e.g. 5h30m");
    for (const auto& e : v) {
        std::string k = e.first.as<std::string>(), suggestion;
        if (!is_platform_key(k, suggestion))
            return err(k, key + ": unknown platform '" + k + "'", suggestion + "use a subdir (linux-64), <subdir>-cuda or default");
        if (auto ok = check(e.second, key + "/" + k); !ok) return ok;
    }
    return {};
}

// `extra` as read from `file` (whose text is `text`, for line numbers).
Result<void> validate_extra(const YAML::Node& extra, const std::string& text, const std::string& file) {
    if (!extra.IsMap() || !extra["splitforge"]) return {};
    const int base = line_of_key(text, "splitforge", 1);
    auto err = [&](const std::string& key, const std::string& what, const std::string& hint) -> Result<void> {
        return fail(SourceLoc{file, line_of_key(text, key, base)}, "extra/splitforge: " + what, hint);
    };
    YAML::Node sf = extra["splitforge"];
    if (!sf.IsMap()) return err("splitforge", "must be a mapping", "see the README's `extra: splitforge:` keys");
    for (const auto& kv : sf) {
        std::string key = kv.first.as<std::string>();
        const auto& known = known_keys();
        if (std::find(known.begin(), known.end(), key) == known.end())
            return err(key, "unknown key '" + key + "'",
                       near(key, known) + "known keys: " + str::join(known, ", "));
        const YAML::Node& v = kv.second;
        if (key == "runners" || key == "timeout_minutes") {
            bool minutes = key == "timeout_minutes";
            auto check_value = [&](const YAML::Node& x, const std::string& where) -> Result<void> {
                if (!x.IsScalar())
                    return err(key, where + ": must be " + (minutes ? "whole minutes" : "a runner label"),
                               minutes ? "e.g. `timeout_minutes: {linux-64: 900, default: 360}`"
                                       : "e.g. `runners: {linux-64: ubuntu-latest}`; timeouts go in timeout_minutes");
                if (minutes) {
                    int m = 0;
                    if (!YAML::convert<int>::decode(x, m) || m <= 0)
                        return err(key, where + ": '" + x.Scalar() + "' is not a whole number of minutes",
                                   "e.g. 360");
                }
                return {};
            };
            if (v.IsScalar()) {
                if (auto ok = check_value(v, key); !ok) return ok;
                continue;
            }
            if (!v.IsMap())
                return err(key, key + ": must be " + (minutes ? "minutes" : "a label") + " or a mapping of platform to " +
                                    (minutes ? "minutes" : "label"),
                           "keys: a platform (linux-64), a platform's CUDA jobs (linux-64-cuda) or default");
            for (const auto& e : v) {
                std::string k = e.first.as<std::string>(), suggestion;
                if (!is_platform_key(k, suggestion))
                    return err(k, key + ": unknown platform '" + k + "'",
                               suggestion + "use a subdir (linux-64), <subdir>-cuda or default");
                if (auto ok = check_value(e.second, key + "/" + k); !ok) return ok;
            }
            continue;
        }
        if (key == "time_limit" || key == "resume_jobs" || key == "ci_setup" || key == "smoke" || key == "smoke_script") {
            if (auto ok = validate_ci_key(key, v, err); !ok) return ok;
            continue;
        }
        // output_keys, use_keys, ignore_keys, lint_skip: lists of names.
        bool ok = v.IsSequence();
        if (ok)
            for (const auto& e : v) ok = ok && e.IsScalar();
        if (!ok) return err(key, key + ": must be a list of names", "e.g. `" + key + ": [with_magma]`");
    }
    return {};
}

std::vector<std::string> lint_skip_of(const YAML::Node& extra) {
    std::vector<std::string> ids;
    if (!extra.IsMap() || !extra["splitforge"] || !extra["splitforge"].IsMap()) return ids;
    YAML::Node l = extra["splitforge"]["lint_skip"];
    if (l && l.IsSequence())
        for (const auto& e : l)
            if (e.IsScalar()) ids.push_back(e.Scalar());
    return ids;
}

// recipe.yaml's `extra:` (it holds no templates in practice), and its text.
struct V1Extra {
    YAML::Node extra;
    std::string text, file;
};
V1Extra v1_extra(const recipe::V1Recipe& r) {
    V1Extra e;
    e.file = r.file;
    auto text = fs::read_file(r.dir / "recipe.yaml");
    if (!text) return e;
    e.text = std::move(*text);
    try {
        YAML::Node root = YAML::Load(e.text);
        if (root.IsMap() && root["extra"] && root["extra"].IsMap()) e.extra = root["extra"];
    } catch (const YAML::Exception&) {
    }
    return e;
}

Result<CiSettings> ci_settings_of(const YAML::Node& extra, const std::string& file);

}  // namespace

Result<void> validate_splitforge_extra(const recipe::RawRecipe& raw) {
    // recipe_extra() reads the recipe's own lines: no key, nothing to check.
    if (raw.text.find("splitforge") == std::string::npos) return {};
    auto extra = recipe_extra(raw, "linux-64", {});
    if (!extra) return unexpected(extra.error());
    return validate_extra(*extra, raw.text, raw.meta_file);
}

Result<void> validate_splitforge_extra(const recipe::V1Recipe& r) {
    auto e = v1_extra(r);
    return validate_extra(e.extra, e.text, e.file);
}

std::vector<std::string> lint_skip_ids(const recipe::RawRecipe& raw) {
    auto extra = recipe_extra(raw, "linux-64", {});
    return extra ? lint_skip_of(*extra) : std::vector<std::string>{};
}

std::vector<std::string> lint_skip_ids(const recipe::V1Recipe& r) { return lint_skip_of(v1_extra(r).extra); }

Result<void> validate_splitforge_extra(const std::filesystem::path& recipe_dir) {
    // Nothing when the recipe does not load: the render says what is wrong.
    if (recipe::is_v1_recipe_dir(recipe_dir)) {
        auto r = recipe::load_v1_recipe(recipe_dir);
        return r ? validate_splitforge_extra(*r) : Result<void>{};
    }
    auto raw = recipe::RawRecipe::load(recipe_dir);
    if (!raw) return {};
    return validate_splitforge_extra(*raw);
}

Result<CiSettings> read_ci_settings(const recipe::RawRecipe& raw, const std::string& subdir,
                                    const std::map<std::string, std::string>& variant) {
    if (auto ok = validate_splitforge_extra(raw); !ok) return unexpected(ok.error());
    auto extra = recipe_extra(raw, subdir, variant);
    if (!extra) return unexpected(extra.error());
    return ci_settings_of(*extra, raw.meta_file);
}

Result<CiSettings> read_ci_settings(const recipe::V1Recipe& r) {
    auto e = v1_extra(r);
    if (auto ok = validate_extra(e.extra, e.text, e.file); !ok) return unexpected(ok.error());
    return ci_settings_of(e.extra, e.file);
}

namespace {

Result<CiSettings> ci_settings_of(const YAML::Node& extra, const std::string& file) {
    CiSettings ci;
    if (!extra.IsMap() || !extra["splitforge"] || !extra["splitforge"].IsMap()) return ci;
    YAML::Node sf = extra["splitforge"];
    auto bad = [&](const std::string& what) {
        return fail(SourceLoc{file}, "extra/splitforge/" + what,
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
        if (YAML::Node t = sf["time_limit"]) {
            if (t.IsScalar())
                ci.time_limits["default"] = t.Scalar();
            else if (t.IsMap())
                for (const auto& kv : t) ci.time_limits[kv.first.as<std::string>()] = kv.second.Scalar();
        }
        if (YAML::Node r = sf["resume_jobs"]) ci.resume_jobs = r.as<int>();
        if (YAML::Node c = sf["ci_setup"]; c && c.IsSequence())
            for (const auto& e : c) ci.setup.push_back(e.Scalar());
        if (YAML::Node c = sf["smoke"]; c && c.IsSequence())
            for (const auto& e : c) ci.smoke.push_back(e.Scalar());
        if (YAML::Node c = sf["smoke_script"]; c && c.IsScalar()) ci.smoke_script = c.Scalar();
    } catch (const YAML::Exception&) {
        return bad("runners / timeout_minutes: labels must be strings, timeouts whole minutes");
    }
    return ci;
}

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

std::string CiSettings::time_limit_for(const std::string& platform, Gpu gpu) const {
    const std::string* t = lookup(time_limits, platform, gpu);
    return t ? *t : std::string();
}

int duration_minutes(const std::string& text) {
    auto d = util::parse_duration(text);
    return d ? static_cast<int>((d->count() + 59) / 60) : -1;
}

}  // namespace sf::feedstock
