#include "feedstock/smithy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>

#include "feedstock/forge_config.hpp"
#include "feedstock/migrations.hpp"
#include "recipe/raw_recipe.hpp"
#include "render/render.hpp"
#include "types/version.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"
#include "variant/config.hpp"

namespace sf::feedstock {
namespace {

namespace stdfs = std::filesystem;
using Values = std::vector<std::string>;
using VMap = std::map<std::string, std::string>;

// conda-smithy sets these in os.environ for the pinning's selectors; we set
// them for the duration of one rerender and put the old values back.
class EnvScope {
public:
    void set(const std::string& k, const std::string& v) {
        if (!saved_.count(k)) {
            const char* old = std::getenv(k.c_str());
            saved_[k] = old ? std::optional<std::string>(old) : std::nullopt;
        }
        ::setenv(k.c_str(), v.c_str(), 1);
    }
    ~EnvScope() {
        for (const auto& [k, v] : saved_) {
            if (v)
                ::setenv(k.c_str(), v->c_str(), 1);
            else
                ::unsetenv(k.c_str());
        }
    }

private:
    std::map<std::string, std::optional<std::string>> saved_;
};

// One file's content before it is written: key -> values, the zip groups,
// pin_run_as_build.
struct Config {
    std::map<std::string, Values> lists;
    std::vector<Values> zip_keys;
    std::map<std::string, variant::PinRunAsBuild> prab;
    bool has_zip = false, has_prab = false;
};

bool version_less(const std::string& a, const std::string& b) {
    auto va = types::Version::parse(a), vb = types::Version::parse(b);
    if (va && vb) return *va < *vb;
    return a < b;
}

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

template <class T>
void push_unique(std::vector<T>& v, const T& x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

bool contains(const Values& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

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

// PyYAML (YAML 1.1) implicit types: a string that reads as one is quoted.
bool looks_typed(const std::string& s) {
    static const std::regex typed(
        R"(^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$)"
        R"(|^(?:~|null|Null|NULL)$)"
        R"(|^[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+)$)"
        R"(|^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?)"
        R"(|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$)"
        R"(|^[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?)"
        R"(|^(?:<<|=)$)");
    return std::regex_search(s, typed);
}

bool needs_quotes(const std::string& s) {
    if (s.empty() || looks_typed(s)) return true;
    static const std::string indicators = "-?:,[]{}#&*!|>'\"%@`";
    if (indicators.find(s[0]) != std::string::npos) {
        // "-", "?" and ":" start a plain scalar when a non-space follows.
        bool plain_ok = (s[0] == '-' || s[0] == '?' || s[0] == ':') && s.size() > 1 && s[1] != ' ';
        if (!plain_ok) return true;
    }
    if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return true;
    if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos) return true;
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f) return true;
    return false;
}

std::string dump(const Config& c, bool bools) {
    std::map<std::string, std::string> blocks;  // key -> its YAML lines
    for (const auto& [k, v] : c.lists) {
        std::string b = yaml_scalar(k, bools) + ":";
        if (v.empty()) b += " []";
        b += "\n";
        for (const auto& x : v) b += "- " + yaml_scalar(x, bools) + "\n";
        blocks[k] = b;
    }
    if (c.has_prab) {
        std::string b = "pin_run_as_build:\n";
        for (const auto& [pkg, pin] : c.prab) {
            b += "  " + yaml_scalar(pkg, bools) + ":\n";
            if (!pin.min_pin.empty()) b += "    min_pin: " + yaml_scalar(pin.min_pin, bools) + "\n";
            if (!pin.max_pin.empty()) b += "    max_pin: " + yaml_scalar(pin.max_pin, bools) + "\n";
        }
        blocks["pin_run_as_build"] = b;
    }
    if (c.has_zip) {
        std::string b = "zip_keys:\n";
        for (const auto& g : c.zip_keys) {
            for (size_t i = 0; i < g.size(); ++i) b += (i ? "  - " : "- - ") + yaml_scalar(g[i], bools) + "\n";
        }
        blocks["zip_keys"] = b;
    }
    std::string out;
    for (const auto& [k, b] : blocks) out += b;
    return out;
}

// The text every used key must appear in: meta.yaml and the recipe's other
// files (scripts, configs), with '-' read as '_' as conda-build's
// requirement scan does.
struct KeyCorpus {
    std::string text;  // '-' read as '_'
    bool compilers = false, stdlib = false, cdt = false;  // compiler(), stdlib(), cdt() appear
    // A substring, not a word: conda-build's `{% if %}` pattern finds "orc"
    // in "torch".
    bool has(const std::string& k) const {
        auto [it, fresh] = seen.try_emplace(k, false);
        if (fresh) it->second = may_have(k) && text.find(k) != std::string::npos;
        return it->second;
    }
    mutable std::unordered_map<std::string, bool> seen;  // every target asks about the same keys

    // Which 4-byte sequences occur in `text`, hashed into a bitmap: most
    // pinning keys are absent, and one of their 4-grams says so at once.
    static constexpr unsigned kBits = 20;
    std::vector<std::uint64_t> grams = std::vector<std::uint64_t>((1u << kBits) / 64);
    static std::uint32_t gram(const char* p) {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return (v * 2654435761u) >> (32 - kBits);
    }
    void index() {
        for (size_t i = 0; i + 4 <= text.size(); ++i) {
            std::uint32_t h = gram(text.data() + i);
            grams[h / 64] |= std::uint64_t{1} << (h % 64);
        }
    }
    bool may_have(const std::string& k) const {
        for (size_t i = 0; i + 4 <= k.size(); ++i) {
            std::uint32_t h = gram(k.data() + i);
            if (!(grams[h / 64] >> (h % 64) & 1)) return false;
        }
        return true;
    }
};

KeyCorpus key_corpus(const recipe::RawRecipe& raw) {
    KeyCorpus c;
    c.text = raw.text;
    std::error_code ec;
    for (const auto& e : stdfs::recursive_directory_iterator(raw.dir, ec)) {
        auto ext = e.path().extension();
        if (!e.is_regular_file(ec) || e.path().filename() == "meta.yaml" || ext == ".patch" || ext == ".diff" ||
            e.file_size(ec) > (4u << 20))
            continue;
        if (auto t = fs::read_file(e.path())) c.text += "\n" + *t;
    }
    std::replace(c.text.begin(), c.text.end(), '-', '_');
    c.index();
    c.compilers = c.has("compiler");
    c.stdlib = c.has("stdlib");
    c.cdt = c.has("cdt(");
    return c;
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

void prune_unused(AlgebraSpec& spec, const KeyCorpus& corpus) {
    auto wanted = [&](const std::string& k) { return may_be_used(k, corpus); };
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

// The rules of the conda-smithy being reproduced (SmithyOptions::smithy_version).
struct Compat {
    bool bools = true;           // >= 3.48.0
    bool keep_cdt = false;       // < 3.52.3
    bool labels_with_gha = true; // >= 3.58.1 (else only when self-hosted)

    static Result<Compat> of(const std::string& version) {
        Compat c;
        if (version.empty()) return c;
        auto v = types::Version::parse(version);
        if (!v) return fail("--smithy-version: '" + version + "' is not a version", "e.g. --smithy-version 3.45.1");
        auto before = [&](const char* x) { return *v < *types::Version::parse(x); };
        c.bools = !before("3.48.0");
        c.keep_cdt = before("3.52.3");
        c.labels_with_gha = !before("3.58.1");
        return c;
    }
};

struct Target {
    ForgeTarget t;
    std::vector<Config> configs;
    std::set<std::string> top_loop;
    std::string first_dist, first_name;  // metas[0] once sorted by dist(), as conda-smithy names the feedstock
};

// The file name: conda-smithy's config_name, cut for Windows' path limit.
std::string file_name(const ForgeTarget& t, const Config& c, const std::set<std::string>& top_loop,
                      const std::string& feedstock_name) {
    std::string name = t.name + "_";
    for (const auto& k : top_loop) {
        if (k == "target_platform") continue;
        auto it = c.lists.find(k);
        name += k + (it != c.lists.end() && !it->second.empty() ? it->second.front() : "");
    }
    std::string out;
    for (char ch : name) {
        if (ch == '*' || ch == ' ') ch = '_';
        if (std::string("<>:?*,\"/|\\").find(ch) != std::string::npos) continue;
        out += ch;
    }
    std::string repo = feedstock_name + "-feedstock";
    size_t outer = std::string("C:/Users/runnerx/_work/").size() + 2 * repo.size() + 2 + std::string(".ci_support/").size();
    if (outer + out.size() + 5 > 259) out = out.substr(0, 259 - outer - 15) + "_h" + hash::sha256(out).substr(0, 8);
    return out + ".yaml";
}

Result<Target> render_target(const recipe::RawRecipe& raw, const ForgeConfig& forge, const ForgeTarget& ft,
                             const SmithyOptions& opts, const std::vector<stdfs::path>& migration_paths,
                             bool uses_cuda, const KeyCorpus& corpus, const Compat& compat, EnvScope& env,
                             std::vector<Error>& warnings) {
    Target out;
    out.t = ft;
    env.set("CONFIG_VERSION", forge.config_version);
    env.set("BUILD_PLATFORM", ft.build_subdir());
    if (str::starts_with(ft.name, "linux") && !ft.os_version.empty()) env.set("DEFAULT_LINUX_VERSION", ft.os_version);
    if (uses_cuda) env.set("CF_CUDA_ENABLED", "True");

    auto platform = types::Platform::parse(ft.subdir());
    if (!platform) return unexpected(platform.error());
    variant::Selection sel;
    sel.platform = *platform;
    sel.strict = opts.strict;
    Diagnostics diag{opts.strict};

    std::vector<Migration> migrations;
    std::set<std::string> migration_keys;  // kept in the pinning too: a migration may extend them
    // conda-smithy reads migrations without the variant keys in scope and
    // says nothing of the names its selectors lack: neither do we.
    Diagnostics quiet{false};
    for (const auto& p : migration_paths) {
        auto m = read_migration(p, sel.platform, sel.build_platform, &quiet);
        if (!m) return unexpected(m.error());
        for (const auto& [k, v] : m->spec.lists) migration_keys.insert(k);
        migration_keys.insert(m->additional_zip_keys.begin(), m->additional_zip_keys.end());
        migration_keys.insert(m->primary_key.begin(), m->primary_key.end());
        for (const auto& [k, v] : m->ordering) migration_keys.insert(k);
        migrations.push_back(std::move(*m));
    }
    std::vector<variant::SpecSource> sources;
    std::vector<stdfs::path> files = opts.exclusive_files;
    if (raw.config_file) files.push_back(*raw.config_file);
    for (const auto& f : files) {
        auto s = variant::read_config_file(f, sel.platform, sel.build_platform, &diag,
                                           [&](const std::string& k) { return migration_keys.count(k) || may_be_used(k, corpus); });
        if (!s) return unexpected(s.error());
        sources.push_back(std::move(*s));
    }
    auto combined = variant::combine(sources);
    if (!combined) return unexpected(combined.error());
    auto migrated = apply_migrations(AlgebraSpec::from(variant::as_source(*combined, "<combined>")), migrations);
    if (!migrated) return unexpected(migrated.error());
    prune_unused(*migrated, corpus);
    sel.spec = std::make_shared<const variant::SpecSource>(migrated->to_source("<migrated spec>"));

    auto input = variant::load(sel, std::nullopt, &diag);
    if (!input) return unexpected(input.error());
    std::vector<variant::Variant> input_variants = variant::explode(*input);
    const variant::Specials& sp = input->specials;

    auto cache = render::make_render_cache();
    render::RenderOptions ro;
    ro.smithy = true;
    auto rr = render::render(raw, sel, cache.get(), ro);
    if (!rr) {
        Error e = rr.error();
        e.message = "rendering for " + ft.name + ": " + e.message;
        return unexpected(e);
    }
    for (const auto& w : diag.warnings()) warnings.push_back(w);
    for (const auto& w : rr->warnings) warnings.push_back(w);

    std::vector<const render::RenderedOutput*> metas;
    for (const auto& o : rr->outputs)
        if (o.noarch == types::NoArch::none || ft.keep_noarch) metas.push_back(&o);
    if (metas.empty() || input_variants.empty()) return out;
    for (const auto* o : metas)
        if (out.first_dist.empty() || o->dist() < out.first_dist) {
            out.first_dist = o->dist();
            out.first_name = o->name;
        }

    bool all_noarch = std::all_of(metas.begin(), metas.end(), [](const auto* o) { return o->noarch != types::NoArch::none; });
    std::set<std::string> all_used;
    for (const auto* o : metas) {
        for (const auto& [k, v] : o->used) all_used.insert(k);
        if (all_used.count("mpi")) all_used.insert({"mpich", "openmpi", "msmpi", "mpi_serial", "impi"});
    }
    // conda-smithy's `.*\{\{ python_min \}\}` on each line: the text, verbatim.
    if (raw.text.find("{{ python_min }}") != std::string::npos) all_used.insert("python_min");

    // The variants the unskipped outputs were rendered with: for each staging
    // variant with an output left, the matrix narrowed to it.
    std::vector<VMap> used_variants;
    std::set<int> live_tops;
    for (const auto* o : metas) live_tops.insert(o->top_variant);
    std::set<VMap> seen;
    {
        // conda-build narrows the matrix key by key, keeping it whole when a
        // key would empty it; one pass per staging variant does the same.
        for (int ti : live_tops) {
            const auto& tv = rr->tops[static_cast<size_t>(ti)].variant;
            std::vector<const variant::Variant*> mv;
            for (const auto& v : rr->variants) mv.push_back(&v);
            for (const auto& k : rr->staging_keys) {
                std::string want = tv.value_or(k, "");
                std::vector<const variant::Variant*> next;
                for (const auto* v : mv)
                    if (const std::string* x = v->get(k); x && *x == want) next.push_back(v);
                if (!next.empty()) mv = std::move(next);
            }
            for (const auto* v : mv) {
                VMap m = merge_deployment_target(v->as_map());
                if (seen.insert(m).second) used_variants.push_back(std::move(m));
            }
        }
    }
    for (const auto* o : metas) {
        VMap m = merge_deployment_target(o->variant.as_map());
        if (seen.insert(m).second) used_variants.push_back(std::move(m));
    }

    // Loop keys: more than one value in the input matrix; the CI-job keys are
    // those every output uses at the top level.
    std::set<std::string> loop;
    for (const auto& [k, v] : input_variants.front().values) {
        if (k == "zip_keys" || k == "pin_run_as_build" || k == "ignore_version") continue;
        for (const auto& other : input_variants)
            if (other.value_or(k, "\x01") != v) {
                loop.insert(k);
                break;
            }
    }
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
    std::set<std::string> top_loop;
    for (const auto& k : *top_vars)
        if (loop.count(k)) top_loop.insert(k);
    if (all_used.count("target_platform")) top_loop.insert("target_platform");

    all_used.insert({"MACOSX_DEPLOYMENT_TARGET", "MACOSX_SDK_VERSION", "macos_min_version", "macos_machine",
                     "channel_sources", "channel_targets", "docker_image", "build_number_decrement"});
    if (!all_noarch) all_used.insert("target_platform");
    if (compat.labels_with_gha ? contains(ft.providers, "github_actions") : forge.github_actions_self_hosted)
        all_used.insert("github_actions_labels");
    if (compat.keep_cdt) all_used.insert({"cdt_name", "cdt_arch", "BUILD"});
    all_used.insert(top_vars->begin(), top_vars->end());

    // Values of the used keys among the used variants; zip groups as tuples.
    std::set<std::string> input_keys;
    for (const auto& v : input_variants)
        for (const auto& [k, x] : v.values) input_keys.insert(k);
    for (auto& v : input_variants) {
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
            if (!all_used.count(present[j])) continue;
            Values col;
            for (const auto& t : tuples) col.push_back(t[j]);
            c.lists[present[j]] = col;
        }
    }
    for (const auto& k : all_used) {
        if (zipped.count(k) || !input_keys.count(k) || sp.is_special(k)) continue;
        Values vals;
        for (const auto& v : used_variants)
            if (auto it = v.find(k); it != v.end()) push_unique(vals, it->second);
        c.lists[k] = vals;
    }
    trim(c);
    dedupe(c);
    trim(c);

    for (auto& cfg : break_up(top_loop, c)) {
        // _is_config_skipped: some output's variant has these CI-job values.
        bool matched = std::any_of(metas.begin(), metas.end(), [&](const render::RenderedOutput* o) {
            for (const auto& k : top_loop) {
                const std::string* val = o->variant.get(k);
                if (!val) return false;
                for (const auto& x : cfg.lists[k])
                    if (x != *val) return false;
            }
            return true;
        });
        if (!matched) continue;
        // finalize_config: linux jobs run in one docker image.
        if (str::starts_with(ft.build_platform, "linux")) {
            auto& di = cfg.lists["docker_image"];
            di = di.empty() ? Values{forge.docker_fallback_image} : Values{di.front()};
            if (const Values* g = group_of(cfg.zip_keys, "docker_image"))
                for (const auto& k : *g)
                    if (k != "docker_image" && !cfg.lists[k].empty()) cfg.lists[k] = {cfg.lists[k].front()};
        }
        out.configs.push_back(std::move(cfg));
    }
    out.top_loop = top_loop;
    return out;
}

}  // namespace

bool is_feedstock_dir(const stdfs::path& dir) {
    std::error_code ec;
    return !stdfs::exists(dir / "meta.yaml", ec) && stdfs::exists(dir / "recipe" / "meta.yaml", ec);
}

std::string yaml_scalar(const std::string& s, bool bools) {
    if (bools && (s == "true" || s == "false")) return s;  // conda-smithy writes these back as booleans
    if (!needs_quotes(s)) return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

Result<SmithyResult> smithy_configs(const SmithyOptions& opts) {
    auto forge = read_forge_config(opts.feedstock_dir);
    if (!forge) return unexpected(forge.error());
    auto raw = recipe::RawRecipe::load(opts.feedstock_dir / forge->recipe_dir);
    if (!raw) return unexpected(raw.error());
    auto migration_paths =
        migration_files(opts.feedstock_dir, opts.exclusive_files.empty() ? stdfs::path() : opts.exclusive_files.front());
    if (!migration_paths) return unexpected(migration_paths.error());

    // conda-smithy's `^[^#]*compiler\(("cuda"|'cuda')\)`: a line calling
    // compiler('cuda') with no '#' before the call.
    bool uses_cuda = false;
    for (const auto& line : str::split(raw->text, '\n'))
        for (const char* call : {"compiler(\"cuda\")", "compiler('cuda')"}) {
            auto at = line.find(call);
            uses_cuda |= at != std::string::npos && line.find('#') > at;
        }

    auto compat = Compat::of(opts.smithy_version);
    if (!compat) return unexpected(compat.error());
    KeyCorpus corpus = key_corpus(*raw);
    SmithyResult res;
    EnvScope env;
    env.set("CF_COMPILER_STACK", "comp7");
    env.set("CF_MIN_PY_VER", "27");
    env.set("CF_MAX_PY_VER", "37");
    env.set("CF_MIN_R_VER", "34");
    env.set("CF_MAX_R_VER", "34");
    std::vector<Target> targets;
    for (const auto& ft : forge->targets()) {
        if (!opts.platforms.empty() && !contains(opts.platforms, ft.name) && !contains(opts.platforms, ft.subdir()))
            continue;
        auto t = render_target(*raw, *forge, ft, opts, *migration_paths, uses_cuda, corpus, *compat, env, res.warnings);
        if (!t) return unexpected(t.error());
        res.targets.push_back(ft.name);
        if (t->configs.empty()) res.empty_targets.push_back(ft.name);
        targets.push_back(std::move(*t));
    }
    // The feedstock's name, for the Windows path limit of file names.
    std::string feedstock_name;
    if (auto it = raw->text.find("feedstock-name"); it != std::string::npos) {
        static const std::regex fn(R"(^\s*feedstock-name:\s*['"]?([A-Za-z0-9_.-]+))");
        for (const auto& line : str::split(raw->text, '\n')) {
            std::smatch m;
            if (std::regex_search(line, m, fn)) feedstock_name = m[1];
        }
    }
    std::string first_dist;
    for (const auto& t : targets)
        if (feedstock_name.empty() && !t.first_dist.empty() && (first_dist.empty() || t.first_dist < first_dist)) {
            first_dist = t.first_dist;
        }
    for (const auto& t : targets)
        if (feedstock_name.empty() && !first_dist.empty() && t.first_dist == first_dist) feedstock_name = t.first_name;
    std::set<std::string> seen;
    for (const auto& t : targets)
        for (const auto& c : t.configs) {
            std::string name = file_name(t.t, c, t.top_loop, feedstock_name);
            if (!seen.insert(name).second) continue;
            res.files.push_back({name, t.t.name, dump(c, compat->bools)});
        }
    std::sort(res.files.begin(), res.files.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    // One warning per text.
    std::vector<Error> uniq;
    for (const auto& w : res.warnings)
        if (std::none_of(uniq.begin(), uniq.end(), [&](const Error& x) { return x.str() == w.str(); })) uniq.push_back(w);
    res.warnings = std::move(uniq);
    return res;
}

}  // namespace sf::feedstock
