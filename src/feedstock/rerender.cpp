#include "feedstock/rerender.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <yaml-cpp/yaml.h>

#include "feedstock/recipe_extra.hpp"
#include "feedstock/smithy.hpp"
#include "recipe/raw_recipe.hpp"
#include "recipe/v1_recipe.hpp"
#include "render/render.hpp"
#include "render/v1_render.hpp"
#include "types/platform.hpp"
#include "util/dir_handle.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "variant/config.hpp"
#include "variant/selection.hpp"

namespace sf::feedstock {
namespace {

namespace stdfs = std::filesystem;

using Split = std::vector<std::pair<std::string, std::string>>;

template <class T>
void push_unique(std::vector<T>& v, const T& x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

bool matches_split(const variant::Variant& v, const Split& split) {
    for (const auto& [k, val] : split)
        if (v.value_or(k, "\x01") != val) return false;
    return true;
}

// Every key the job file carries: the used keys, the split keys, the CI keys
// when the config has them, and every zip partner of those (a partial zip
// group would clash with the recipe's own conda_build_config.yaml).
std::vector<std::string> keys_to_write(const render::RenderedRecipe& rr, const variant::Specials& sp) {
    std::set<std::string> present;
    for (const auto& [k, v] : rr.variants.front().values) present.insert(k);
    std::set<std::string> want(rr.used_keys.begin(), rr.used_keys.end());
    want.insert(rr.staging_keys.begin(), rr.staging_keys.end());
    want.insert({"target_platform", kRunnerKey, kTimeoutKey});
    for (const auto& k : std::vector<std::string>(want.begin(), want.end()))
        if (const auto* g = sp.zip_group_of(k)) want.insert(g->begin(), g->end());
    std::vector<std::string> out;
    for (const auto& k : want)
        if (present.count(k) && !sp.is_special(k)) out.push_back(k);
    return out;  // sorted (from the set)
}

CiJob make_job(const std::string& platform, const Split& split, const std::vector<variant::Variant>& slice,
               const std::vector<std::string>& keys, const variant::Specials& sp, const CiSettings& ci) {
    CiJob job;
    job.platform = platform;
    job.split = split;
    std::map<std::string, std::vector<std::string>> lists;
    std::set<std::string> done;
    for (const auto& group : sp.zip_keys) {
        std::vector<std::string> g;
        for (const auto& k : group)
            if (std::find(keys.begin(), keys.end(), k) != keys.end()) g.push_back(k);
        if (g.empty()) continue;
        std::vector<std::vector<std::string>> tuples;
        for (const auto& v : slice) {
            std::vector<std::string> t;
            for (const auto& k : g) t.push_back(v.value_or(k, ""));
            push_unique(tuples, t);
        }
        for (size_t i = 0; i < g.size(); ++i) {
            for (const auto& t : tuples) lists[g[i]].push_back(t[i]);
            done.insert(g[i]);
        }
        if (g.size() > 1) job.zip_keys.push_back(g);
    }
    for (const auto& k : keys) {
        if (done.count(k)) continue;
        for (const auto& v : slice)
            if (const auto* val = v.get(k)) push_unique(lists[k], *val);
    }
    // A CUDA job: every cuda_compiler_version in it is set and not None.
    auto gpu = CiSettings::Gpu::no;
    if (auto it = lists.find("cuda_compiler_version"); it != lists.end() && !it->second.empty() &&
        std::none_of(it->second.begin(), it->second.end(), [](const std::string& v) { return v == "None" || v.empty(); }))
        gpu = CiSettings::Gpu::cuda;
    if (!lists.count(kRunnerKey)) lists[kRunnerKey] = {ci.runner_for(platform, gpu)};
    if (!lists.count(kTimeoutKey)) lists[kTimeoutKey] = {std::to_string(ci.timeout_for(platform, gpu))};
    job.gpu = gpu == CiSettings::Gpu::cuda;
    job.time_limit = ci.time_limit_for(platform, gpu);
    if (!job.time_limit.empty()) job.resume_jobs = ci.resume_jobs;
    job.runner = lists[kRunnerKey].front();
    try {
        job.timeout_minutes = std::stoi(lists[kTimeoutKey].front());
    } catch (const std::exception&) {
        job.timeout_minutes = kDefaultTimeoutMinutes;
    }
    job.keys.assign(lists.begin(), lists.end());
    return job;
}

// The recipe in either format: meta.yaml (raw) or recipe.yaml (v1).
struct AnyRecipe {
    std::optional<recipe::RawRecipe> raw;
    std::optional<recipe::V1Recipe> v1;
    std::string file() const { return v1 ? v1->file : raw->meta_file; }
};

Result<AnyRecipe> load_any(const stdfs::path& dir) {
    AnyRecipe r;
    if (recipe::is_v1_recipe_dir(dir)) {
        auto v1 = recipe::load_v1_recipe(dir);
        if (!v1) return unexpected(v1.error());
        r.v1 = std::move(*v1);
    } else {
        auto raw = recipe::RawRecipe::load(dir);
        if (!raw) return unexpected(raw.error());
        r.raw = std::move(*raw);
    }
    return r;
}

Result<std::vector<CiJob>> jobs_for_platform(const AnyRecipe& recipe, const RerenderOptions& opts,
                                             const std::string& platform, render::RenderCache* cache,
                                             std::vector<Error>& warnings) {
    auto target = types::Platform::parse(platform);
    if (!target) return unexpected(target.error());
    variant::Selection sel;
    sel.platform = *target;
    sel.variant_files = opts.variant_files;
    sel.exclusive_files = opts.exclusive_files;
    sel.strict = opts.strict;
    auto rr = recipe.v1 ? render::render_v1(*recipe.v1, sel) : render::render(*recipe.raw, sel, cache);
    if (!rr) {
        Error e = rr.error();
        e.message = "rendering for " + platform + ": " + e.message;
        return unexpected(e);
    }
    for (const auto& w : rr->warnings)
        if (std::none_of(warnings.begin(), warnings.end(), [&](const Error& x) { return x.str() == w.str(); }))
            warnings.push_back(w);
    if (rr->tops.empty() || rr->variants.empty()) return std::vector<CiJob>{};

    auto spec = recipe.v1 ? variant::load_v1(sel, recipe.v1->variant_config) : variant::load(sel, recipe.raw->config_file);
    if (!spec) return unexpected(spec.error());
    const variant::Specials& sp = spec->specials;

    auto ci = recipe.v1 ? read_ci_settings(*recipe.v1)
                        : read_ci_settings(*recipe.raw, platform, rr->tops.front().variant.as_map());
    if (!ci) return unexpected(ci.error());

    // Keys in the name: split keys with more than one value on this platform.
    std::set<std::string> varying;
    for (const auto& k : rr->staging_keys) {
        std::set<std::string> vals;
        for (const auto& v : rr->variants) vals.insert(v.value_or(k, ""));
        if (vals.size() > 1) varying.insert(k);
    }
    auto keys = keys_to_write(*rr, sp);
    std::vector<CiJob> jobs;
    std::vector<Split> seen;
    for (size_t t = 0; t < rr->tops.size(); ++t) {
        const auto& top = rr->tops[t];
        const auto& tv = top.variant;
        Split split;
        for (const auto& k : rr->staging_keys)
            if (const auto* val = tv.get(k)) split.emplace_back(k, *val);
        if (std::find(seen.begin(), seen.end(), split) != seen.end()) continue;
        seen.push_back(split);
        std::vector<variant::Variant> slice;
        for (const auto& v : rr->variants)
            if (matches_split(v, split)) slice.push_back(v);
        if (slice.empty()) slice.push_back(tv);
        CiJob job = make_job(platform, split, slice, keys, sp, *ci);
        Split named;
        for (const auto& kv : split)
            if (varying.count(kv.first)) named.push_back(kv);
        job.name = file_stem(config_name(platform, named));
        job.short_name = short_config_name(config_name(platform, named));
        std::set<std::string> names;
        for (const auto& o : rr->outputs)
            if (o.top_variant == static_cast<int>(t) || matches_split(o.variant, split)) names.insert(o.name);
        job.outputs.assign(names.begin(), names.end());
        jobs.push_back(std::move(job));
    }
    return jobs;
}

std::string file_name(const CiJob& j) { return j.name + ".yaml"; }

}  // namespace

const std::vector<std::string>& default_platforms() {
    static const std::vector<std::string> p = {"linux-64", "linux-aarch64", "osx-64", "osx-arm64", "win-64"};
    return p;
}

bool is_generated(const std::string& text) { return str::starts_with(text, "# Generated by `splitforge rerender`"); }

Result<RerenderResult> plan_jobs(const RerenderOptions& opts) {
    auto recipe = load_any(opts.recipe_dir);
    if (!recipe) return unexpected(recipe.error());
    RerenderResult res;
    const auto& platforms = opts.platforms.empty() ? default_platforms() : opts.platforms;
    auto cache = render::make_render_cache();  // the platforms share parsed pieces
    for (const auto& p : platforms) {
        auto jobs = jobs_for_platform(*recipe, opts, p, cache.get(), res.warnings);
        if (!jobs) return unexpected(jobs.error());
        if (jobs->empty()) res.skipped.push_back(p);
        for (auto& j : *jobs) res.jobs.push_back(std::move(j));
    }
    std::sort(res.jobs.begin(), res.jobs.end(), [](const CiJob& a, const CiJob& b) { return a.name < b.name; });
    auto ci = recipe->v1 ? read_ci_settings(*recipe->v1) : read_ci_settings(*recipe->raw, "linux-64", {});
    if (!ci) return unexpected(ci.error());
    res.ci_setup = ci->setup;
    res.ci_smoke = ci->smoke;
    res.ci_smoke_script = ci->smoke_script;
    for (size_t i = 1; i < res.jobs.size(); ++i)
        if (res.jobs[i].name == res.jobs[i - 1].name)
            return fail(SourceLoc{recipe->file()}, "two CI jobs get the same name '" + res.jobs[i].name + "'",
                        "variant values differ only in characters that are not safe in file names");
    return res;
}

namespace {

// The top-level keys of a YAML text whose values differ from `other`'s.
std::vector<std::string> differing_keys(const std::string& a, const std::string& b) {
    std::vector<std::string> out;
    try {
        YAML::Node na = YAML::Load(a), nb = YAML::Load(b);
        if (!na.IsMap() || !nb.IsMap()) return {"(whole file)"};
        std::map<std::string, std::string> ma, mb;
        auto canon = [](const YAML::Node& n) {
            YAML::Emitter e;
            e << n;
            return std::string(e.c_str());
        };
        for (auto it = na.begin(); it != na.end(); ++it) ma[it->first.Scalar()] = canon(it->second);
        for (auto it = nb.begin(); it != nb.end(); ++it) mb[it->first.Scalar()] = canon(it->second);
        for (const auto& [k, v] : ma)
            if (!mb.count(k) || mb[k] != v) out.push_back(k);
        for (const auto& [k, v] : mb)
            if (!ma.count(k)) out.push_back(k);
    } catch (const YAML::Exception&) {
        return {"(does not parse)"};
    }
    return out;
}

// Where rerender writes: `sub` below `root`, opened without following a
// symlink (a committed `.ci_support -> ../..` would have it write and delete
// elsewhere). nullopt when it does not exist yet and `create` is no.
Result<std::optional<fs::Dir>> open_target(const stdfs::path& root, const std::string& sub, fs::Create create) {
    auto top = fs::Dir::open(root, sub.empty() ? create : fs::Create::no);
    if (!top) {
        if (create == fs::Create::no && !stdfs::exists(root)) return std::optional<fs::Dir>{};
        return unexpected(top.error());
    }
    if (sub.empty()) return std::optional<fs::Dir>{std::move(*top)};
    if (create == fs::Create::no && top->kind(sub) == fs::Kind::missing) return std::optional<fs::Dir>{};
    auto d = top->sub(sub, create);
    if (!d) return unexpected(d.error());
    return std::optional<fs::Dir>{std::move(*d)};
}

// Writes (or, in check mode, compares) `files` in `sub` below `root`; a .yaml
// file there that is not wanted is removed when `removable` says so (given
// its text). Files are read, written and removed only as what they are, never
// through a symlink.
Result<void> sync_files(const stdfs::path& root, const std::string& sub,
                        const std::vector<std::pair<std::string, std::string>>& files, RerenderMode mode,
                        const std::function<bool(const std::string&, const std::string&)>& mine,
                        const std::function<bool(const std::string&)>& removable, RerenderResult& res,
                        const std::string& ext = ".yaml") {
    auto dir = open_target(root, sub, fs::Create::no);
    if (!dir) return unexpected(dir.error());
    std::set<std::string> wanted;
    for (const auto& [fn, text] : files) {
        wanted.insert(fn);
        auto have = *dir && (*dir)->kind(fn) == fs::Kind::file ? (*dir)->read(fn) : Result<std::string>(fail("absent"));
        if (have && *have == text) {
            res.unchanged.push_back(fn);
            continue;
        }
        if (have) {
            res.stale.push_back(fn);
            res.stale_keys[fn] = differing_keys(*have, text);
        } else {
            res.missing.push_back(fn);
        }
        if (mode == RerenderMode::check) continue;
        if (!*dir) {
            dir = open_target(root, sub, fs::Create::yes);
            if (!dir) return unexpected(dir.error());
        }
        auto w = (*dir)->write_atomic(fn, text);
        if (!w) return unexpected(w.error());
        res.written.push_back(fn);
    }
    if (!*dir) return {};
    std::vector<std::string> present;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator((*dir)->path(), ec)) {
        std::string fn = e.path().filename().string();
        if (e.path().extension() == ext && (*dir)->kind(fn) == fs::Kind::file) present.push_back(fn);
    }
    std::sort(present.begin(), present.end());
    for (const auto& fn : present) {
        if (wanted.count(fn)) continue;
        auto text = (*dir)->read(fn);
        if (!mine(fn, text ? *text : std::string())) continue;
        res.extra.push_back(fn);
        if (mode == RerenderMode::check || !text || !removable(*text)) continue;
        if (auto r = (*dir)->remove(fn); !r)
            return fail(r.error().loc, "cannot remove a stale variant file: " + r.error().message);
        res.removed.push_back(fn);
    }
    return {};
}

// A conda-forge feedstock: conda-smithy's .ci_support files.
Result<RerenderResult> rerender_feedstock(const RerenderOptions& opts, RerenderMode mode) {
    SmithyOptions so;
    so.feedstock_dir = opts.recipe_dir;
    so.exclusive_files = opts.exclusive_files;
    so.platforms = opts.platforms;
    so.strict = opts.strict;
    so.smithy_version = opts.smithy_version;
    if (!opts.variant_files.empty())
        return fail(SourceLoc{opts.variant_files.front().string()},
                    "-m is not read when rerendering a feedstock (conda-smithy reads the recipe's own config)",
                    "pass conda-forge's pinning with -e, or put the keys in recipe/conda_build_config.yaml");
    auto sm = smithy_configs(so);
    if (!sm) return unexpected(sm.error());
    RerenderResult res;
    res.feedstock = true;
    res.warnings = sm->warnings;
    res.migrations = sm->migrations;
    res.skipped = sm->empty_targets;
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& f : sm->files) {
        files.emplace_back(f.name, f.text);
        res.files.push_back(f.name);
    }
    // An explicit --variants-dir is the user's own choice; .ci_support is
    // whatever the feedstock's repository holds.
    stdfs::path root = opts.variants_dir.empty() ? opts.recipe_dir : opts.variants_dir;
    std::string sub = opts.variants_dir.empty() ? ".ci_support" : "";
    // Without --platform every stale file goes (conda-smithy clears the
    // folder); with it, only files of the platforms rendered.
    std::vector<std::string> prefixes;
    for (const auto& t : sm->targets) prefixes.push_back(t + "_");
    bool all = opts.platforms.empty();
    auto mine = [&](const std::string& fn, const std::string&) {
        if (all) return true;
        return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& x) { return str::starts_with(fn, x); });
    };
    auto any = [](const std::string&) { return true; };
    if (auto r = sync_files(root, sub, files, mode, mine, any, res); !r) return unexpected(r.error());
    return res;
}

// The CI workflows (workflow.hpp), when wanted: only files rerender wrote
// (their first line says so) are replaced or removed; a hand-written
// workflow beside them stays.
Result<void> sync_workflows(const RerenderOptions& opts, RerenderMode mode, RerenderResult& res) {
    // The workflow holds every platform's jobs: a --platform rerender has
    // only some of them, so it leaves the workflows alone.
    if (!opts.platforms.empty()) return {};
    RerenderResult::Workflows wf;
    auto in = workflow_inputs(opts, res, wf.platforms);
    if (!in) return unexpected(in.error());
    if (!*in) return {};
    auto files = github_workflows(**in);
    if (!files) return unexpected(files.error());
    std::vector<std::pair<std::string, std::string>> texts;
    for (const auto& f : *files) {
        texts.emplace_back(f.name, f.text);
        wf.files.push_back(f.name);
    }
    stdfs::path base = feedstock_root(opts);
    stdfs::path root = opts.workflows_dir.empty() ? base : opts.workflows_dir;
    std::string sub = opts.workflows_dir.empty() ? ".github/workflows" : "";
    wf.dir = opts.workflows_dir.empty() ? (base == "." ? sub : (base / sub).string()) : opts.workflows_dir.string();
    RerenderResult got;
    auto mine = [](const std::string&, const std::string& text) { return is_generated_workflow(text); };
    auto removable = [](const std::string& text) { return is_generated_workflow(text); };
    if (auto r = sync_files(root, sub, texts, mode, mine, removable, got, ".yml"); !r) return r;
    wf.written = got.written;
    wf.removed = got.removed;
    wf.stale = got.stale;
    wf.missing = got.missing;
    wf.extra = got.extra;
    res.workflows = std::move(wf);
    return {};
}

}  // namespace

Result<RerenderResult> rerender(const RerenderOptions& opts, RerenderMode mode) {
    if (!opts.ci.empty() && !opts.platforms.empty())
        return fail(SourceLoc{opts.recipe_dir.string()}, "--ci writes every platform's jobs; --platform renders only some",
                    "drop --platform to write the workflows");
    if (!opts.ci.empty() && is_feedstock_dir(opts.recipe_dir))
        return fail(SourceLoc{opts.recipe_dir.string()},
                    "--ci writes splitforge's workflows for a recipe's variants/; a conda-forge feedstock's CI is "
                    "conda-smithy's [ci-smithy-mode]",
                    "run `splitforge rerender RECIPE_DIR --ci github` on the recipe directory");
    if (is_feedstock_dir(opts.recipe_dir)) return rerender_feedstock(opts, mode);
    RerenderOptions own = opts;
    // The default variants/ (in the current directory) is opened without
    // following a symlink; an explicit --variants-dir is the user's choice.
    stdfs::path root = opts.variants_dir.empty() ? stdfs::path(".") : opts.variants_dir;
    std::string sub = opts.variants_dir.empty() ? "variants" : "";
    if (own.variants_dir.empty()) own.variants_dir = "variants";
    auto planned = plan_jobs(own);
    if (!planned) return planned;
    RerenderResult res = std::move(*planned);
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& j : res.jobs) files.emplace_back(file_name(j), job_yaml(j));
    // Only files rerender wrote itself are removed; with --platform, only
    // those of the platforms asked for.
    auto mine = [&](const std::string& fn, const std::string&) {
        if (opts.platforms.empty()) return true;
        return std::any_of(opts.platforms.begin(), opts.platforms.end(), [&](std::string plat) {
            std::replace(plat.begin(), plat.end(), '-', '_');
            return str::starts_with(fn, plat + "_");
        });
    };
    auto removable = [](const std::string& text) { return is_generated(text); };
    if (auto r = sync_files(root, sub, files, mode, mine, removable, res); !r) return unexpected(r.error());
    if (auto r = sync_workflows(opts, mode, res); !r) return unexpected(r.error());
    return res;
}

}  // namespace sf::feedstock
