// conda-smithy's rerender of a rattler-build (recipe.yaml, v1) feedstock.
//
// conda-smithy (configure_feedstock.py, 2026.8.5) renders a v1 feedstock
// through rattler_build_conda_compat (render.py, 1.4.x): `rattler-build build
// --render-only` once per platform gives each output's used variant
// (build_configuration.variant), and the compat layer's MetaData feeds
// conda-smithy's usual reduction (_collapse_subpackage_variants). Against the
// v0 path (smithy_target.cpp, conda-build's MetaData) it differs here only:
//   - used keys: each output's used variant as rattler-build evaluates it (a
//     key counts where evaluation reads it, free specs, target_platform and
//     channel_* always), '-' read as '_', the recipe's output names left out
//     (an exact pin_subpackage enters as its output's name), target_platform
//     left out of noarch outputs. No script scan, and no top-level/output
//     split: get_used_vars ignores force_top_level, so the CI-job keys are the
//     keys every output uses that vary.
//   - input variants are per output (_reduce_variants): the spec exploded
//     over its used keys and every zipped key, other keys at their first
//     value; the first output's (by dist()) are "the" input variants.
//   - its variants are those input variants whose used keys hold its used
//     values (compared as strings); its config.variant is the first of them.
//   - loop keys are per output (its used keys that vary in its input
//     variants), then intersected over the outputs.
//   - the recipe file read for compiler('cuda') and `{{ python_min }}` is
//     recipe.yaml; outputs rattler-build skips never reach conda-smithy.
//   - variants.yaml is read by ruamel, not conda-build's loader: its plain
//     integers stay ints, in the files too (Target::ints).
// The spec (pinning, recipe config, migrations), the files' names and
// contents are the v0 ones.
#include <algorithm>
#include <set>

#include "feedstock/smithy_detail.hpp"

namespace sf::feedstock::detail {
namespace {

std::string normalized(std::string k) {
    std::replace(k.begin(), k.end(), '-', '_');
    return k;
}

// compat's get_used_variant: the output's used variant, keys normalized,
// without the recipe's outputs and (noarch) target_platform.
VMap used_variant(const render::RenderedOutput& o, const std::set<std::string>& output_names) {
    VMap used;
    for (const auto& [k, v] : o.used) {
        std::string key = normalized(k);
        if (output_names.count(key)) continue;
        if (key == "target_platform" && o.noarch != types::NoArch::none) continue;
        used[key] = v;
    }
    return used;
}

// get_vars: the keys with more than one value among `variants`.
std::set<std::string> varying(const std::vector<variant::Variant>& variants) {
    std::set<std::string> out;
    if (variants.empty()) return out;
    for (const auto& [k, v] : variants.front().values) {
        if (k == "zip_keys" || k == "pin_run_as_build" || k == "extend_keys" || k == "ignore_version") continue;
        for (const auto& other : variants)
            if (other.value_or(k, "\x01") != v) {
                out.insert(k);
                break;
            }
    }
    return out;
}

// One output's input variants: `full` with every key outside `kept` at its
// first value, each distinct point once, in `full`'s order.
std::vector<variant::Variant> input_variants(const std::vector<variant::Variant>& full, const std::set<std::string>& kept) {
    std::vector<variant::Variant> out;
    std::set<std::vector<std::pair<std::string, std::string>>> seen;
    const variant::Variant& first = full.front();
    for (const auto& v : full) {
        variant::Variant p;
        for (const auto& [k, x] : v.values) p.values.emplace_back(k, kept.count(k) ? x : first.value_or(k, x));
        if (seen.insert(p.values).second) out.push_back(std::move(p));
    }
    return out;
}

// A scalar that Python reads as true once YAML has loaded it.
bool truthy(const recipe::YamlNode& n) {
    if (n.is_sequence()) return !n.items.empty();
    if (n.is_mapping()) return !n.pairs.empty();
    if (!n.is_scalar()) return false;
    static const std::set<std::string> falsy = {"", "false", "False", "FALSE", "no", "No", "NO", "off", "Off",
                                                "OFF", "0", "null", "Null", "NULL", "~"};
    return !falsy.count(n.scalar);
}

}  // namespace

std::optional<render::RenderedOutput> unrendered_output(const recipe::V1Recipe& r, bool keep_noarch) {
    const recipe::YamlNode* build = r.section("build");
    const recipe::YamlNode* skip = build ? build->find("skip") : nullptr;
    const recipe::YamlNode* noarch = build ? build->find("noarch") : nullptr;
    if (skip && truthy(*skip)) return std::nullopt;
    render::RenderedOutput o;
    if (noarch && noarch->is_scalar() && !noarch->scalar.empty())
        o.noarch = noarch->scalar == "python" ? types::NoArch::python : types::NoArch::generic;
    if (o.noarch != types::NoArch::none && !keep_noarch) return std::nullopt;
    if (const recipe::YamlNode* top = r.section(r.multi_output() ? "recipe" : "package")) {
        if (const auto* n = top->find("name"); n && n->is_scalar()) o.name = n->scalar;
        if (const auto* v = top->find("version"); v && v->is_scalar()) o.version = v->scalar;
    }
    o.build_string = "unrendered_0";
    return o;
}

Result<V1Keys> v1_job_keys(const render::RenderedRecipe& rr, const Outputs& metas0,
                           const std::vector<variant::Variant>& full, const variant::Specials& sp) {
    Outputs metas = metas0;
    std::stable_sort(metas.begin(), metas.end(), [](const auto* a, const auto* b) { return a->dist() < b->dist(); });
    std::set<std::string> output_names;
    for (const auto& o : rr.outputs) output_names.insert(normalized(o.name));
    std::set<std::string> zipped;
    for (const auto& g : sp.zip_keys) zipped.insert(g.begin(), g.end());

    V1Keys out;
    std::set<VMap> seen;
    bool first = true;
    for (const auto* o : metas) {
        VMap used = used_variant(*o, output_names);
        std::set<std::string> keys;
        for (const auto& [k, v] : used) keys.insert(k);
        std::set<std::string> kept = zipped;
        kept.insert(keys.begin(), keys.end());
        auto inputs = input_variants(full, kept);
        std::vector<VMap> mine;
        for (const auto& v : inputs) {
            bool match = std::all_of(used.begin(), used.end(), [&](const auto& kv) {
                const std::string* x = v.get(kv.first);
                return !x || *x == kv.second;
            });
            if (match) mine.push_back(v.as_map());
        }
        if (mine.empty())
            return fail("output " + o->dist() + ": no variant of the spec holds its used variant",
                        "conda-smithy stops here too (rattler_build_conda_compat finds no package variant)");
        out.meta_variants.push_back(mine.front());
        for (auto& m : mine) {
            m = merge_deployment_target(std::move(m));
            if (seen.insert(m).second) out.used_variants.push_back(std::move(m));
        }
        std::set<std::string> loop;
        for (const auto& k : varying(inputs))
            if (keys.count(k)) loop.insert(k);
        if (first) {
            out.input_variants = std::move(inputs);
            out.keys.top_vars = keys;
            out.keys.top_loop = loop;
        } else {
            std::set<std::string> tv, tl;
            for (const auto& k : out.keys.top_vars)
                if (keys.count(k)) tv.insert(k);
            for (const auto& k : out.keys.top_loop)
                if (loop.count(k)) tl.insert(k);
            out.keys.top_vars = std::move(tv);
            out.keys.top_loop = std::move(tl);
        }
        out.keys.used.insert(keys.begin(), keys.end());
        first = false;
    }
    return out;
}

}  // namespace sf::feedstock::detail
