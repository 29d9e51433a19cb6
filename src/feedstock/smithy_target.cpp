// One target platform of a conda-forge feedstock, as conda-smithy's
// configure_feedstock.py renders it: the spec (pinning, recipe config,
// migrations), the render, the keys the outputs use, and the CI jobs.
#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>

#include "feedstock/migrations.hpp"
#include "feedstock/smithy_detail.hpp"
#include "render/render.hpp"
#include "render/v1_render.hpp"
#include "types/platform.hpp"
#include "types/version.hpp"
#include "util/strings.hpp"
#include "variant/typing_index.hpp"

namespace sf::feedstock::detail {
namespace {

namespace stdfs = std::filesystem;

bool version_less(const std::string& a, const std::string& b) {
    auto va = types::Version::parse(a), vb = types::Version::parse(b);
    if (va && vb) return *va < *vb;
    return a < b;
}

template <class T>
void push_unique(std::vector<T>& v, const T& x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// sort_config: each zip group's keys sorted together by their tuples, every
// other list sorted.
void sort_config(Config& c, const std::vector<Values>& groups) {
    std::set<std::string> zipped;
    for (const auto& g0 : groups) {
        Values g;
        for (const auto& k : g0)
            if (c.lists.count(k)) g.push_back(k);
        if (g.empty()) continue;
        size_t n = c.lists[g[0]].size();
        std::vector<size_t> order(n);
        for (size_t i = 0; i < n; ++i) order[i] = i;
        auto tuple = [&](size_t i) {
            Values t;
            for (const auto& k : g) t.push_back(i < c.lists[k].size() ? c.lists[k][i] : "");
            return t;
        };
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tuple(a) < tuple(b); });
        for (const auto& k : g) {
            Values sorted;
            for (size_t i : order)
                if (i < c.lists[k].size()) sorted.push_back(c.lists[k][i]);
            c.lists[k] = std::move(sorted);
            zipped.insert(k);
        }
    }
    for (auto& [k, v] : c.lists)
        if (!zipped.count(k)) std::sort(v.begin(), v.end());
    std::sort(c.zip_keys.begin(), c.zip_keys.end());
}

// _trim_unused_zip_keys / _trim_unused_pin_run_as_build.
void trim(Config& c) {
    std::vector<Values> groups;
    for (const auto& g : c.zip_keys) {
        Values used;
        for (const auto& k : g)
            if (c.lists.count(k)) used.push_back(k);
        if (used.size() > 1) groups.push_back(used);
    }
    c.zip_keys = groups;
    c.has_zip = c.has_zip && !groups.empty();
    std::map<std::string, variant::PinRunAsBuild> prab;
    for (const auto& [pkg, pin] : c.prab) {
        std::string var = pkg;
        std::replace(var.begin(), var.end(), '-', '_');
        if (c.lists.count(var)) prab[pkg] = pin;
    }
    c.prab = prab;
    c.has_prab = c.has_prab && !prab.empty();
}

const Values* group_of(const std::vector<Values>& groups, const std::string& k) {
    for (const auto& g : groups)
        if (contains(g, k)) return &g;
    return nullptr;
}

// Deduplicates as conda-smithy's explode / set / squish round trip does:
// unique values per key, unique tuples per zip group.
void dedupe(Config& c) {
    for (auto& [k, v] : c.lists) {
        if (group_of(c.zip_keys, k)) continue;
        Values u;
        for (const auto& x : v) push_unique(u, x);
        v = u;
    }
    for (const auto& g : c.zip_keys) {
        std::vector<Values> tuples;
        size_t n = c.lists[g[0]].size();
        for (size_t i = 0; i < n; ++i) {
            Values t;
            for (const auto& k : g) t.push_back(i < c.lists[k].size() ? c.lists[k][i] : "");
            push_unique(tuples, t);
        }
        for (size_t j = 0; j < g.size(); ++j) {
            Values col;
            for (const auto& t : tuples) col.push_back(t[j]);
            c.lists[g[j]] = col;
        }
    }
}

// break_up_top_level_values: one config per combination of the top-level
// loop keys; zip partners move with them, every other key keeps all values.
std::vector<Config> break_up(const std::set<std::string>& top, Config rest) {
    std::vector<std::vector<Config>> dims;
    std::set<std::string> done;
    for (const auto& key : top) {
        if (done.count(key) || !rest.lists.count(key)) continue;
        if (const Values* g0 = group_of(rest.zip_keys, key)) {
            Values g = *g0;
            done.insert(g.begin(), g.end());
            std::vector<Values> order;
            std::map<Values, Config> by_top;
            size_t n = rest.lists[key].size();
            for (size_t i = 0; i < n; ++i) {
                Values tk;
                for (const auto& k : g)
                    if (top.count(k)) tk.push_back(rest.lists[k][i]);
                push_unique(order, tk);
                for (const auto& k : g) by_top[tk].lists[k].push_back(rest.lists[k][i]);
            }
            std::vector<Config> dim;
            for (const auto& tk : order) {
                Config z = by_top[tk];
                sort_config(z, rest.zip_keys);
                dim.push_back(std::move(z));
            }
            dims.push_back(std::move(dim));
            for (const auto& k : g) rest.lists.erase(k);
        } else {
            std::vector<Config> dim;
            for (const auto& v : rest.lists[key]) {
                Config one;
                one.lists[key] = {v};
                dim.push_back(std::move(one));
            }
            dims.push_back(std::move(dim));
            rest.lists.erase(key);
        }
    }
    sort_config(rest, rest.zip_keys);
    std::vector<Config> out = {rest};
    for (const auto& dim : dims) {
        std::vector<Config> next;
        for (const auto& base : out)
            for (const auto& d : dim) {
                Config c = base;
                for (const auto& [k, v] : d.lists) c.lists[k] = v;
                next.push_back(std::move(c));
            }
        out = std::move(next);
    }
    return out;
}
// Drops the keys the recipe cannot use, so the matrix is never built over
// the pinning's hundreds of keys: a key stays when its name is in the
// recipe's text, when a Jinja function reads it (compiler, stdlib, cdt),
// when conda-smithy always keeps it, or when it is zipped with one that
// stays.
bool may_be_used(std::string k, const KeyCorpus& corpus) {
    static const std::set<std::string> keep = {
        "target_platform", "MACOSX_DEPLOYMENT_TARGET", "MACOSX_SDK_VERSION", "macos_min_version", "macos_machine",
        "channel_sources", "channel_targets", "docker_image", "build_number_decrement", "github_actions_labels",
        "python_min", "CONDA_BUILD_SYSROOT", "extend_keys", "ignore_version", "ignore_build_only_deps",
        "zip_keys", "pin_run_as_build", "cdt_name", "cdt_arch", "BUILD"};
    if (keep.count(k)) return true;
    if (str::ends_with(k, "_compiler") || str::ends_with(k, "_compiler_version")) return corpus.compilers;
    if (str::ends_with(k, "_stdlib") || str::ends_with(k, "_stdlib_version")) return corpus.stdlib;
    if (str::starts_with(k, "cdt_")) return corpus.cdt || corpus.has(k);
    if (k == "mpi" || k == "mpich" || k == "openmpi" || k == "msmpi" || k == "mpi_serial" || k == "impi")
        return corpus.has("mpi");
    std::replace(k.begin(), k.end(), '-', '_');
    return corpus.has(k);
}

// On osx, c_stdlib_version stays even where the recipe cannot use it: the
// package variants carry every key (unused ones at their first value), and
// conda-smithy's _merge_deployment_target sets MACOSX_SDK_VERSION from it.
bool kept_for_platform(const std::string& k, const types::Platform& platform) {
    return k == "c_stdlib_version" && platform.os() == "osx";
}

void prune_unused(AlgebraSpec& spec, const KeyCorpus& corpus, const types::Platform& platform) {
    auto wanted = [&](const std::string& k) { return may_be_used(k, corpus) || kept_for_platform(k, platform); };
    std::set<std::string> kept;
    for (const auto& [k, v] : spec.lists)
        if (wanted(k)) kept.insert(k);
    for (const auto& g : spec.zip_keys)
        if (std::any_of(g.begin(), g.end(), [&](const std::string& k) { return kept.count(k); }))
            kept.insert(g.begin(), g.end());
    for (auto it = spec.lists.begin(); it != spec.lists.end();)
        it = kept.count(it->first) ? std::next(it) : spec.lists.erase(it);
    std::vector<Values> groups;
    for (const auto& g : spec.zip_keys)
        if (kept.count(g.front())) groups.push_back(g);
    spec.zip_keys = groups;
}
// The selection one target renders with: its platform, and the os.environ
// values conda-smithy has set by then.
Result<variant::Selection> selection_for(const ForgeTarget& ft, const SmithyOptions& opts,
                                         const recipe::EnvOverlay& os_environ) {
    auto platform = types::Platform::parse(ft.subdir());
    if (!platform) return unexpected(platform.error());
    variant::Selection sel;
    sel.platform = *platform;
    sel.strict = opts.strict;
    sel.extra_environ = os_environ;
    return sel;
}

// The migrations read for the target, and every key they name (kept in the
// pinning too: a migration may extend them).
struct Migrations {
    std::vector<Migration> list;
    std::set<std::string> keys;
};

Result<Migrations> read_migrations(const std::vector<stdfs::path>& paths, const variant::Selection& sel) {
    Migrations out;
    // conda-smithy reads migrations without the variant keys in scope and
    // says nothing of the names its selectors lack: neither do we.
    Diagnostics quiet{false};
    for (const auto& p : paths) {
        auto m = read_migration(p, sel, &quiet);
        if (!m) return unexpected(m.error());
        for (const auto& [k, v] : m->spec.lists) out.keys.insert(k);
        out.keys.insert(m->additional_zip_keys.begin(), m->additional_zip_keys.end());
        out.keys.insert(m->primary_key.begin(), m->primary_key.end());
        for (const auto& [k, v] : m->ordering) out.keys.insert(k);
        out.list.push_back(std::move(*m));
    }
    return out;
}

// A YAML integer that ruamel loads as a plain Python int (decimal, no
// leading zero or '+').
bool is_yaml_int(const std::string& v) {
    std::string_view d = v;
    if (!d.empty() && d.front() == '-') d.remove_prefix(1);
    if (d.empty() || (d.size() > 1 && d.front() == '0')) return false;
    return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The pinning (-e) and the recipe's config merged, the migrations laid over
// them, and the keys the recipe cannot use dropped.
Result<variant::SpecSource> migrated_spec(const TargetInputs& in, const variant::Selection& sel, Diagnostics& diag) {
    auto migrations = read_migrations(in.migration_paths, sel);
    if (!migrations) return unexpected(migrations.error());
    auto keep = [&](const std::string& k) {
        return migrations->keys.count(k) || may_be_used(k, in.corpus) || kept_for_platform(k, sel.platform);
    };
    std::vector<variant::SpecSource> sources;
    std::vector<RecipeConfig> files;
    for (const auto& f : in.opts.exclusive_files) files.push_back({f});
    files.insert(files.end(), in.recipe_configs.begin(), in.recipe_configs.end());
    for (size_t i = 0; i < files.size(); ++i) {
        const auto& f = files[i];
        auto s = variant::read_config_file(f.file, sel, &diag, keep, f.syntax);
        if (!s) return unexpected(variant::name_flag(s.error(), variant::flag_of(i, in.opts.exclusive_files.size(), files.size())));
        // conda-build's loader makes every number of conda_build_config.yaml
        // a string; ruamel keeps variants.yaml's plain integers ints.
        if (f.syntax != variant::ConfigSyntax::conditionals) s->plain.clear();
        sources.push_back(std::move(*s));
    }
    auto combined = variant::combine(sources);
    if (!combined) return unexpected(combined.error());
    auto migrated = apply_migrations(AlgebraSpec::from(variant::as_source(*combined, "<combined>")), migrations->list);
    if (!migrated) {
        Error e = migrated.error();
        if (in.opts.exclusive_files.empty() && key_add_unmet(e)) {  // the pinning holds what key_add extends
            e.message = "no global pinning given; " + e.message;
            e.hint = "pass -e .../conda-forge-pinning/conda_build_config.yaml";
        }
        return unexpected(e);
    }
    prune_unused(*migrated, in.used_corpus, sel.platform);
    variant::SpecSource out = migrated->to_source("<migrated spec>");
    const variant::TypingIndex typing(*combined);
    for (const auto& [k, vals] : out.lists)
        for (const auto& v : vals)
            if (is_yaml_int(v) && typing.plain(k, v)) out.plain.emplace(k, v);
    return out;
}

// The recipe rendered as conda-smithy renders it: every output, nothing
// finalized.
Result<render::RenderedRecipe> render_recipe(const TargetInputs& in, const variant::Selection& sel,
                                             const ForgeTarget& ft) {
    auto render_it = [&]() -> Result<render::RenderedRecipe> {
        // rattler-build's render leaves skipped outputs out.
        if (in.v1) return render::render_v1(*in.v1, sel);
        auto cache = render::make_render_cache();
        render::RenderOptions ro;
        ro.smithy = true;
        return render::render(*in.raw, sel, cache.get(), ro);
    };
    auto rr = render_it();
    if (!rr) {
        Error e = rr.error();
        e.message = "rendering for " + ft.name + ": " + e.message;
        return unexpected(e);
    }
    return rr;
}

// The spec conda-smithy hands rattler-build (`-m`): conda-build's combined
// spec, its defaults (DEFAULT_VARIANTS, the default compilers) under the
// migrated one, dumped by ruamel: numbers stay the strings conda-build's
// StringifyNumbersLoader made them, booleans are YAML booleans.
Result<variant::SpecSource> rattler_spec(const variant::SpecSource& migrated, const types::Platform& platform) {
    auto combined = variant::combine({variant::default_spec(platform), migrated});
    if (!combined) return unexpected(combined.error());
    variant::SpecSource s = variant::as_source(*combined, "<conda-smithy's variants for rattler-build>");
    for (const auto& [k, vals] : s.lists)
        for (const auto& v : vals)
            if (v == "true" || v == "false" || migrated.plain.count({k, v})) s.plain.emplace(k, v);
    return s;
}

// The outputs the target builds: noarch ones only where they are kept.
Outputs kept_outputs(const render::RenderedRecipe& rr, const ForgeTarget& ft) {
    Outputs metas;
    for (const auto& o : rr.outputs)
        if (o.noarch == types::NoArch::none || ft.keep_noarch) metas.push_back(&o);
    return metas;
}

// The variants the unskipped outputs were rendered with: for each staging
// variant with an output left, the matrix narrowed to it; then each
// output's own.
std::vector<VMap> used_variants(const render::RenderedRecipe& rr, const Outputs& metas) {
    std::vector<VMap> used;
    std::set<int> live_tops;
    for (const auto* o : metas) live_tops.insert(o->top_variant);
    std::set<VMap> seen;
    // conda-build narrows the matrix key by key, keeping it whole when a
    // key would empty it; one pass per staging variant does the same.
    for (int ti : live_tops) {
        const auto& tv = rr.tops[static_cast<size_t>(ti)].variant;
        std::vector<const variant::Variant*> mv;
        for (const auto& v : rr.variants) mv.push_back(&v);
        for (const auto& k : rr.staging_keys) {
            std::string want = tv.value_or(k, "");
            std::vector<const variant::Variant*> next;
            for (const auto* v : mv)
                if (const std::string* x = v->get(k); x && *x == want) next.push_back(v);
            if (!next.empty()) mv = std::move(next);
        }
        for (const auto* v : mv) {
            VMap m = merge_deployment_target(v->as_map());
            if (seen.insert(m).second) used.push_back(std::move(m));
        }
    }
    for (const auto* o : metas) {
        VMap m = merge_deployment_target(o->variant.as_map());
        if (seen.insert(m).second) used.push_back(std::move(m));
    }
    return used;
}

// The keys with more than one value in the input matrix.
std::set<std::string> loop_keys(const std::vector<variant::Variant>& input_variants) {
    std::set<std::string> loop;
    const auto& first = input_variants.front().values;
    for (size_t i = 0; i < first.size(); ++i) {
        const auto& [k, v] = first[i];
        if (k == "zip_keys" || k == "pin_run_as_build" || k == "ignore_version") continue;
        // The matrix's variants share one key order: key i is mostly at i.
        auto value = [&](const variant::Variant& other) {
            return i < other.values.size() && other.values[i].first == k ? other.values[i].second
                                                                        : other.value_or(k, "\x01");
        };
        for (const auto& other : input_variants)
            if (value(other) != v) {
                loop.insert(k);
                break;
            }
    }
    return loop;
}

// The keys every output uses at the top level.
std::set<std::string> top_level_keys(const Outputs& metas) {
    std::optional<std::set<std::string>> top_vars;
    for (const auto* o : metas) {
        std::set<std::string> s(o->top_level_used.begin(), o->top_level_used.end());
        if (!top_vars) {
            top_vars = s;
            continue;
        }
        std::set<std::string> both;
        std::set_intersection(top_vars->begin(), top_vars->end(), s.begin(), s.end(), std::inserter(both, both.end()));
        top_vars = both;
    }
    return top_vars.value_or(std::set<std::string>{});
}

// conda-build's (v0) used keys: every output's used keys, the ones every
// output uses at the top level, and of those the ones that vary.
JobKeys v0_job_keys(const Outputs& metas, const std::vector<variant::Variant>& input_variants) {
    JobKeys keys;
    for (const auto* o : metas)
        for (const auto& [k, v] : o->used) keys.used.insert(k);
    std::set<std::string> loop = loop_keys(input_variants);
    keys.top_vars = top_level_keys(metas);
    for (const auto& k : keys.top_vars)
        if (loop.count(k)) keys.top_loop.insert(k);
    return keys;
}

// The values of the used keys among the used variants; zip groups as tuples.
Config used_config(const variant::Specials& sp, const std::vector<variant::Variant>& input_variants,
                   const std::vector<VMap>& used_variants, const std::set<std::string>& used) {
    std::set<std::string> input_keys;
    for (const auto& v : input_variants)
        for (const auto& [k, x] : v.values) input_keys.insert(k);
    for (const auto& v : input_variants) {
        VMap m = merge_deployment_target(v.as_map());
        for (const auto& [k, x] : m) input_keys.insert(k);
    }
    Config c;
    c.zip_keys = sp.zip_keys;
    c.has_zip = !sp.zip_keys.empty();
    c.prab = sp.pin_run_as_build;
    c.has_prab = !sp.pin_run_as_build.empty();
    std::set<std::string> zipped;
    for (const auto& g : sp.zip_keys) {
        Values present;
        for (const auto& k : g)
            if (input_keys.count(k)) present.push_back(k);
        zipped.insert(g.begin(), g.end());
        if (present.empty()) continue;
        std::vector<Values> tuples;
        for (const auto& v : used_variants) {
            Values t;
            for (const auto& k : present) t.push_back(v.count(k) ? v.at(k) : "");
            push_unique(tuples, t);
        }
        for (size_t j = 0; j < present.size(); ++j) {
            if (!used.count(present[j])) continue;
            Values col;
            for (const auto& t : tuples) col.push_back(t[j]);
            c.lists[present[j]] = col;
        }
    }
    for (const auto& k : used) {
        if (zipped.count(k) || !input_keys.count(k) || sp.is_special(k)) continue;
        Values vals;
        for (const auto& v : used_variants)
            if (auto it = v.find(k); it != v.end()) push_unique(vals, it->second);
        c.lists[k] = vals;
    }
    trim(c);
    dedupe(c);
    trim(c);
    return c;
}

// One config per CI job: `c` broken up over the top-level loop keys, the
// combinations no output has left out (_is_config_skipped), linux jobs
// narrowed to one docker image (finalize_config).
// `meta_variants`: each output's variant (conda-build's meta.config.variant).
std::vector<Config> ci_jobs(const Config& c, const std::set<std::string>& top_loop,
                            const std::vector<VMap>& meta_variants, const ForgeTarget& ft, const ForgeConfig& forge) {
    std::vector<Config> jobs;
    for (auto& cfg : break_up(top_loop, c)) {
        bool matched = std::any_of(meta_variants.begin(), meta_variants.end(), [&](const VMap& v) {
            for (const auto& k : top_loop) {
                auto val = v.find(k);
                if (val == v.end()) return false;
                for (const auto& x : cfg.lists[k])
                    if (x != val->second) return false;
            }
            return true;
        });
        if (!matched) continue;
        if (str::starts_with(ft.build_platform, "linux")) {
            auto& di = cfg.lists["docker_image"];
            di = di.empty() ? Values{forge.docker_fallback_image} : Values{di.front()};
            if (const Values* g = group_of(cfg.zip_keys, "docker_image"))
                for (const auto& k : *g)
                    if (k != "docker_image" && !cfg.lists[k].empty()) cfg.lists[k] = {cfg.lists[k].front()};
        }
        jobs.push_back(std::move(cfg));
    }
    return jobs;
}

// Sets `key` as an os.environ assignment does: a name already there keeps
// its place.
void set_environ(recipe::EnvOverlay& os_environ, const std::string& key, const std::string& value) {
    auto it = std::find_if(os_environ.begin(), os_environ.end(), [&](const auto& kv) { return kv.first == key; });
    if (it != os_environ.end())
        it->second = value;
    else
        os_environ.emplace_back(key, value);
}

}  // namespace

// _merge_deployment_target: on osx, c_stdlib_version and
// MACOSX_DEPLOYMENT_TARGET both become the higher one, the SDK at least that.
VMap merge_deployment_target(VMap v) {
    auto tp = v.find("target_platform");
    if (tp == v.end() || !str::starts_with(tp->second, "osx")) return v;
    auto cs = v.find("c_stdlib_version");
    if (cs == v.end()) return v;
    std::string stdlib = cs->second;
    std::string macdt = v.count("MACOSX_DEPLOYMENT_TARGET") ? v["MACOSX_DEPLOYMENT_TARGET"] : stdlib;
    std::string sdk = v.count("MACOSX_SDK_VERSION") ? v["MACOSX_SDK_VERSION"] : stdlib;
    if (version_less(stdlib, macdt)) stdlib = macdt;
    if (version_less(sdk, stdlib)) sdk = stdlib;
    v["c_stdlib_version"] = stdlib;
    v["MACOSX_DEPLOYMENT_TARGET"] = stdlib;
    v["MACOSX_SDK_VERSION"] = sdk;
    return v;
}

}  // namespace sf::feedstock::detail

namespace sf::feedstock {

bool keeps_python_min(std::string_view recipe_text) {
    return recipe_text.find("{{ python_min }}") != std::string_view::npos;
}

}  // namespace sf::feedstock

namespace sf::feedstock::detail {

void finish_keys(JobKeys& keys, const TargetInputs& in, const ForgeTarget& ft, const Outputs& metas) {
    if (keys.used.count("mpi")) keys.used.insert({"mpich", "openmpi", "msmpi", "mpi_serial", "impi"});
    if (keeps_python_min(in.recipe_text)) keys.used.insert("python_min");
    if (keys.used.count("target_platform")) keys.top_loop.insert("target_platform");

    bool all_noarch = std::all_of(metas.begin(), metas.end(), [](const auto* o) { return o->noarch != types::NoArch::none; });
    keys.used.insert({"MACOSX_DEPLOYMENT_TARGET", "MACOSX_SDK_VERSION", "macos_min_version", "macos_machine",
                      "channel_sources", "channel_targets", "docker_image", "build_number_decrement"});
    if (!all_noarch) keys.used.insert("target_platform");
    if (in.compat.labels_with_gha ? contains(ft.providers, "github_actions") : in.forge.github_actions_self_hosted)
        keys.used.insert("github_actions_labels");
    if (in.compat.keep_cdt) keys.used.insert({"cdt_name", "cdt_arch", "BUILD"});
    keys.used.insert(keys.top_vars.begin(), keys.top_vars.end());
}

recipe::EnvOverlay target_environ(recipe::EnvOverlay os_environ, const ForgeConfig& forge, const ForgeTarget& ft,
                                  bool uses_cuda) {
    set_environ(os_environ, "CONFIG_VERSION", forge.config_version);
    set_environ(os_environ, "BUILD_PLATFORM", ft.build_subdir());
    if (str::starts_with(ft.name, "linux") && !ft.os_version.empty())
        set_environ(os_environ, "DEFAULT_LINUX_VERSION", ft.os_version);
    if (uses_cuda) set_environ(os_environ, "CF_CUDA_ENABLED", "True");
    return os_environ;
}

Result<Target> render_target(const TargetInputs& in, const ForgeTarget& ft, const recipe::EnvOverlay& os_environ) {
    Target out;
    out.t = ft;
    auto sel = selection_for(ft, in.opts, os_environ);
    if (!sel) return unexpected(sel.error());
    Diagnostics diag{in.opts.strict};
    auto spec = migrated_spec(in, *sel, diag);
    if (!spec) return unexpected(spec.error());
    out.ints = spec->plain;
    sel->spec = std::make_shared<const variant::SpecSource>(std::move(*spec));
    auto input = variant::load(*sel, std::nullopt, &diag);
    if (!input) return unexpected(input.error());
    const std::vector<variant::Variant> input_variants = variant::explode(*input);
    // conda-smithy renders with conda-build's Config(platform, arch), whose
    // build_subdir is then the target too, and rattler_build_conda_compat
    // passes that platform as both --target-platform and --build-platform:
    // either recipe renders as a native build of the target
    // (`build_platform != target_platform` never holds), whatever machine
    // builds it on CI. The pinning was read as conda-build reads it, with
    // the CI build platform.
    variant::Selection render_sel = *sel;
    render_sel.build_platform = sel->platform;
    if (in.v1) {
        auto rs = rattler_spec(*sel->spec, sel->platform);
        if (!rs) return unexpected(rs.error());
        render_sel.spec = std::make_shared<const variant::SpecSource>(std::move(*rs));
    }
    auto rr = render_recipe(in, render_sel, ft);
    if (!rr) return unexpected(rr.error());
    out.warnings = diag.warnings();
    out.warnings.insert(out.warnings.end(), rr->warnings.begin(), rr->warnings.end());

    if (in.v1 && rr->outputs.empty())
        if (auto u = unrendered_output(*in.v1, ft.keep_noarch)) rr->outputs.push_back(std::move(*u));
    const Outputs metas = kept_outputs(*rr, ft);
    if (metas.empty() || input_variants.empty()) return out;
    for (const auto* o : metas)
        if (out.first_dist.empty() || o->dist() < out.first_dist) {
            out.first_dist = o->dist();
            out.first_name = o->name;
        }
    JobKeys keys;
    Config c;
    std::vector<VMap> meta_variants;
    if (in.v1) {
        auto v1 = v1_job_keys(*rr, metas, input_variants, input->specials);
        if (!v1) return unexpected(v1.error());
        keys = std::move(v1->keys);
        finish_keys(keys, in, ft, metas);
        c = used_config(input->specials, v1->input_variants, v1->used_variants, keys.used);
        meta_variants = std::move(v1->meta_variants);
    } else {
        // Loop keys over the variants distribute_variants keeps: for a noarch
        // recipe, only the newest python (conda-build-feedstock's python).
        keys = v0_job_keys(metas, rr->variants.empty() ? input_variants : rr->variants);
        finish_keys(keys, in, ft, metas);
        c = used_config(input->specials, input_variants, used_variants(*rr, metas), keys.used);
        for (const auto* o : metas) meta_variants.push_back(o->variant.as_map());
    }
    out.configs = ci_jobs(c, keys.top_loop, meta_variants, ft, in.forge);
    out.top_loop = std::move(keys.top_loop);
    return out;
}

}  // namespace sf::feedstock::detail
