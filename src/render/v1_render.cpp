// recipe.yaml -> RenderedRecipe: the matrix, one evaluation per combination,
// exact pins, hashes (stage1/hash.rs) and build strings (BuildString::resolve).
#include "render/v1_render.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

#include "core/try.hpp"
#include "render/pins.hpp"
#include "render/v1_detail.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"
#include "variant/config.hpp"
#include "variant/limits.hpp"
#include "variant/typing_index.hpp"

namespace sf::render {

using v1::normalized;
using recipe::YamlNode;

namespace {

// Identifiers in an expression (string literals skipped), plus the keys that
// compiler('x'), stdlib('x') and cdt() read.
void scan_expr(std::string_view e, std::set<std::string>& keys) {
    std::string last_ident;
    for (size_t i = 0; i < e.size();) {
        char c = e[i];
        if (c == '\'' || c == '"') {
            size_t j = i + 1;
            while (j < e.size() && e[j] != c) j += e[j] == '\\' ? 2 : 1;
            std::string lit(e.substr(i + 1, std::min(j, e.size()) - i - 1));
            if (last_ident == "compiler" || last_ident == "stdlib") {
                keys.insert(lit + "_" + last_ident);
                keys.insert(lit + "_" + last_ident + "_version");
            }
            if (last_ident == "pin_subpackage") keys.insert(normalized(lit));  // an exact pin's key
            last_ident.clear();
            i = j + 1;
        } else if (std::isalpha((unsigned char)c) || c == '_') {
            size_t j = i;
            while (j < e.size() && (std::isalnum((unsigned char)e[j]) || e[j] == '_')) ++j;
            last_ident = std::string(e.substr(i, j - i));
            keys.insert(last_ident);
            if (last_ident == "cdt") keys.insert({"cdt_name", "cdt_arch"});
            if (last_ident == "compiler" || last_ident == "stdlib") keys.insert("CONDA_BUILD_SYSROOT");
            i = j;
        } else {
            if (c != '(' && !std::isspace((unsigned char)c)) last_ident.clear();
            ++i;
        }
    }
}

// Calls `emit` for every node that may read keys, in document order, with
// the keys it may read.
using Emit = std::function<void(const YamlNode&, const std::set<std::string>&)>;

void scan_node(const YamlNode& n, bool in_requirements, const Emit& emit) {
    if (n.is_scalar()) {
        std::set<std::string> keys;
        const std::string& s = n.scalar;
        for (size_t open = s.find("${{"); open != std::string::npos; open = s.find("${{", open + 3)) {
            size_t end = s.find("}}", open + 3);
            scan_expr(std::string_view(s).substr(open + 3, end == std::string::npos ? std::string::npos : end - open - 3), keys);
        }
        if (in_requirements && s.find("${{") == std::string::npos && s.find_first_of(" =<>!~*[") == std::string::npos)
            keys.insert(normalized(std::string(str::trim(s))));
        if (!keys.empty()) emit(n, keys);
        return;
    }
    for (const auto& i : n.items) scan_node(i, in_requirements, emit);
    for (const auto& [k, v] : n.pairs) {
        if (k.scalar == "if" || k.scalar == "skip") {
            // conditions are expressions without ${{ }}
            std::vector<const YamlNode*> conds{&v};
            if (v.is_sequence()) {
                conds.clear();
                for (const auto& i : v.items) conds.push_back(&i);
            }
            for (const auto* c : conds) {
                std::set<std::string> keys;
                if (c->is_scalar()) scan_expr(c->scalar, keys);
                if (!keys.empty()) emit(*c, keys);
            }
            continue;
        }
        bool req = in_requirements || k.scalar == "requirements";
        if (in_requirements && (k.scalar == "run" || k.scalar == "run_constraints")) req = false;
        if (k.scalar == "use_keys") {
            std::set<std::string> keys;
            for (const auto& i : v.items) keys.insert(i.scalar);
            emit(v, keys);
        }
        scan_node(v, req && k.scalar != "run_exports" && k.scalar != "ignore_run_exports", emit);
    }
}

// serde_json's string escaping (non-ASCII kept as is).
void json_string(const std::string& s, std::string& out) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    out += '"';
}

}  // namespace

std::string v1_hash_input(const nlohmann::json& used) {
    std::map<std::string, const nlohmann::json*> sorted;
    for (auto& [k, v] : used.items()) sorted[normalized(k)] = &v;
    std::string out = "{";
    bool first = true;
    for (const auto& [k, v] : sorted) {
        if (!first) out += ", ";
        first = false;
        json_string(k, out);
        out += ": ";
        if (v->is_string()) json_string(v->get<std::string>(), out);
        else out += v->dump();
    }
    return out + "}";
}

std::string v1_hash_prefix(const nlohmann::json& used, bool noarch_python) {
    if (noarch_python) return "py";
    std::map<std::string, std::string> got;
    for (auto& [k, v] : used.items()) {
        std::string n = normalized(k), prefix;
        if (n == "numpy") prefix = "np";
        else if (n == "python") prefix = "py";
        else if (n == "perl") prefix = "pl";
        else if (n == "lua") prefix = "lua";
        else if (n == "r" || n == "r_base") prefix = "r";
        else continue;
        std::string text = v.is_string() ? v.get<std::string>() : v.dump();
        auto parts = str::split(text, '.');
        std::string shortv;
        for (size_t i = 0; i < (prefix == "pl" ? 3u : 2u) && i < parts.size(); ++i) shortv += parts[i];
        got[prefix] = shortv;
    }
    std::string out;
    for (const char* p : {"np", "py", "pl", "lua", "r", "mro"})
        if (auto it = got.find(p); it != got.end()) out += p + it->second;
    return out;
}

std::set<std::string> v1::scan_used_keys(const recipe::V1Recipe& r) {
    std::set<std::string> keys(std::begin(kAlwaysUsed), std::end(kAlwaysUsed));
    scan_node(r.root, false, [&](const YamlNode&, const std::set<std::string>& k) { keys.insert(k.begin(), k.end()); });
    return keys;
}

std::map<std::string, SourceLoc> v1_key_uses(const recipe::V1Recipe& r, const RenderedRecipe& rr) {
    std::map<std::string, SourceLoc> out;
    std::set<std::string> want(rr.used_keys.begin(), rr.used_keys.end());
    scan_node(r.root, false, [&](const YamlNode& n, const std::set<std::string>& keys) {
        for (const auto& k : want)
            if (!out.count(k) && (keys.count(k) || keys.count(normalized(k)))) out[k] = r.at(n);
    });
    return out;
}

namespace {

struct Combo {
    variant::Variant variant;
    v1::Vars typed;
};

struct Item {
    v1::Evaluated ev;
    int combo = 0;
    bool done = false;
};

// Exact pin_subpackage dependencies of an output, by pinned name.
std::vector<std::string> exact_pins(const RenderedOutput& o) {
    std::vector<std::string> names;
    for (const auto* list : {&o.requirements.build, &o.requirements.host, &o.requirements.run, &o.requirements.run_constrained})
        for (const auto& d : *list)
            if (const auto* p = d.pin(); p && p->kind == types::Pin::Kind::subpackage && p->exact) names.push_back(p->name);
    return names;
}

const Item* pinned(const std::vector<Item>& items, const Item& self, const std::string& name) {
    const Item* any = nullptr;
    for (const auto& it : items) {
        if (it.ev.out.name != name || !it.done) continue;
        if (it.combo == self.combo) return &it;
        if (!any) any = &it;
    }
    return any;
}

// Every pin_subpackage becomes a match spec against the output it names, by
// rattler-build's pin arithmetic (pin_compatible waits for the host env: engine).
Result<void> resolve_subpackage_pins(std::vector<Item>& items) {
    for (auto& it : items) {
        auto fix = [&](std::vector<types::Dependency>& deps) -> Result<void> {
            for (auto& d : deps) {
                const types::Pin* p = d.pin();
                if (!p || p->kind != types::Pin::Kind::subpackage) continue;
                const Item* to = pinned(items, it, p->name);
                if (!to) continue;
                auto text = apply_v1_pin(*p, to->ev.out.version, to->ev.out.build_string);
                if (!text) return fail(it.ev.out.name + ": " + text.error().message);
                if (auto dep = types::Dependency::parse(*text); dep) d = std::move(*dep);
            }
            return {};
        };
        auto& R = it.ev.out.requirements;
        // rattler-build's stage1 recipe.requirements, before its finalized
        // dependencies: pins unresolved (printed by name), free specs bare.
        it.ev.out.nonfinal_requirements = R;
        for (auto* l : {&R.build, &R.host, &R.run, &R.run_constrained}) SF_TRY_VOID(fix(*l));
        auto& X = it.ev.out.run_exports;
        for (auto* l : {&X.weak, &X.strong, &X.noarch, &X.weak_constrains, &X.strong_constrains}) SF_TRY_VOID(fix(*l));
        SF_TRY_VOID(fix(it.ev.out.test.requires_));
        for (auto& t : it.ev.out.test_elements) SF_TRY_VOID(fix(t.requires_));
    }
    return {};
}

Result<void> finalize(Item& it, const std::vector<Item>& items, v1::Env& env, const Combo& combo) {
    auto& ev = it.ev;
    nlohmann::json used = ev.used;
    for (const auto& k : ev.use_keys)
        if (auto t = combo.typed.find(k); t != combo.typed.end()) used[k] = v1::to_json_value(t->second);
    for (const auto& k : ev.ignore_keys) used.erase(k);
    for (const auto& name : exact_pins(ev.out)) {
        const Item* to = pinned(items, it, name);
        if (!to) continue;
        used[normalized(name)] = to->ev.out.version + " " + to->ev.out.build_string;
    }
    std::string input = v1_hash_input(used);
    std::string hash = hash::sha1(input).substr(0, 7);
    std::string prefix = v1_hash_prefix(used, ev.out.noarch == types::NoArch::python);
    if (ev.string_template) {
        env.set("hash", jinja::Value(hash));
        env.set("build_number", jinja::Value(static_cast<std::int64_t>(ev.out.build_number)));
        SF_TRY(s, env.render_text(*ev.string_template, *ev.string_node));
        ev.out.build_string = s;
    } else {
        ev.out.build_string = prefix + "h" + hash + "_" + std::to_string(ev.out.build_number);
    }
    ev.out.hash = "h" + hash;
    ev.out.hash_input = nlohmann::json::parse(input);
    for (auto& [k, v] : used.items()) ev.out.used[k] = v.is_string() ? v.get<std::string>() : v.dump();
    it.done = true;
    return {};
}

// Build order: by staging build, and within one an output after the outputs
// of this recipe it needs (build, host or run), recipe order otherwise.
void order_for_build(std::vector<RenderedOutput>& outs) {
    std::vector<RenderedOutput> done;
    std::vector<bool> placed(outs.size(), false);
    auto needs = [&](const RenderedOutput& o, size_t j) {
        const auto& other = outs[j];
        if (other.top_variant != o.top_variant || other.name == o.name) return false;
        for (const auto* l : {&o.requirements.build, &o.requirements.host, &o.requirements.run})
            for (const auto& d : *l)
                if (d.name() == other.name) return true;
        return false;
    };
    while (done.size() < outs.size()) {
        bool progress = false;
        for (size_t i = 0; i < outs.size(); ++i) {
            if (placed[i]) continue;
            bool ready = true;
            for (size_t j = 0; j < outs.size() && ready; ++j) ready = placed[j] || !needs(outs[i], j);
            if (!ready) continue;
            placed[i] = progress = true;
            done.push_back(outs[i]);
        }
        if (!progress)  // a cycle: keep the rest in recipe order
            for (size_t i = 0; i < outs.size(); ++i)
                if (!placed[i]) placed[i] = true, done.push_back(outs[i]);
    }
    std::stable_sort(done.begin(), done.end(),
                     [](const RenderedOutput& a, const RenderedOutput& b) { return a.top_variant < b.top_variant; });
    outs = std::move(done);
}

// The keys of `spec` the recipe can read.
std::vector<std::string> readable_keys(const recipe::V1Recipe& r, const variant::CombinedSpec& spec) {
    auto scanned = v1::scan_used_keys(r);
    std::vector<std::string> used_keys;
    for (const auto& [k, v] : spec.lists)
        if (scanned.count(k) || scanned.count(normalized(k))) used_keys.push_back(k);
    return used_keys;
}

// rattler-build expands only the keys the recipe can read (and their zip
// partners): every other key keeps its first value, so a pinning's many
// multi-valued keys multiply nothing, and the size limit is that matrix's.
Result<variant::CombinedSpec> narrowed(variant::CombinedSpec spec, const std::vector<std::string>& readable) {
    std::set<std::string> keep(readable.begin(), readable.end());
    for (const auto& k : readable)
        if (const auto* g = spec.specials.zip_group_of(k)) keep.insert(g->begin(), g->end());
    for (auto& [k, vals] : spec.lists)
        if (!keep.count(k) && !spec.specials.is_special(k) && vals.size() > 1) vals.resize(1);
    SF_TRY_VOID(variant::check_matrix_size(spec));
    return spec;
}

// The combinations to evaluate: the matrix reduced to the keys the recipe
// can read, each once, with values typed as rattler-build reads them.
std::vector<Combo> combinations(const variant::CombinedSpec& spec, const std::vector<std::string>& used_keys,
                                const std::vector<variant::Variant>& all) {
    std::vector<Combo> combos;
    std::set<std::vector<std::string>> seen;
    const variant::TypingIndex typing(spec);
    for (const auto& v : variant::reduce(all, spec.specials, used_keys)) {
        std::vector<std::string> key;
        for (const auto& k : used_keys) key.push_back(v.value_or(k, "\x01"));
        if (!seen.insert(key).second) continue;
        Combo c{v, {}};
        for (const auto& [k, val] : v.values) c.typed[k] = v1::typed_value(val, typing.of(k, val));
        combos.push_back(std::move(c));
    }
    return combos;
}

// Build strings in dependency order: an exact pin needs the pinned build string.
Result<void> build_strings(std::vector<Item>& items, std::vector<std::unique_ptr<v1::Env>>& envs,
                           const std::vector<Combo>& combos) {
    for (bool progress = true; progress;) {
        progress = false;
        for (auto& it : items) {
            if (it.done) continue;
            bool ready = true;
            for (const auto& name : exact_pins(it.ev.out))
                if (name != it.ev.out.name && !pinned(items, it, name)) {
                    bool exists = std::any_of(items.begin(), items.end(), [&](const Item& o) { return o.ev.out.name == name; });
                    ready = ready && !exists;
                }
            if (!ready) continue;
            SF_TRY_VOID(finalize(it, items, *envs[it.combo], combos[it.combo]));
            progress = true;
        }
    }
    return {};
}

// One staging build per distinct value of the keys the staging outputs use;
// the index of each combination's.
Result<std::vector<int>> group_tops(RenderedRecipe& rr, std::vector<std::unique_ptr<v1::Env>>& envs,
                                    const std::vector<Combo>& combos) {
    std::map<std::vector<std::string>, int> top_of;
    std::vector<int> combo_top(combos.size());
    for (size_t ci = 0; ci < combos.size(); ++ci) {
        std::vector<std::string> key;
        for (const auto& k : rr.staging_keys) key.push_back(combos[ci].variant.value_or(k, ""));
        auto [pos, fresh] = top_of.emplace(key, static_cast<int>(rr.tops.size()));
        if (fresh) {
            SF_TRY(tv, v1::eval_top(*envs[ci], combos[ci].variant));
            rr.tops.push_back(std::move(tv));
        }
        combo_top[ci] = pos->second;
    }
    return combo_top;
}

Result<void> name_and_version(v1::Env& env, const YamlNode* top, RenderedRecipe& rr) {
    if (!top) return {};
    SourceLoc name_at, version_at;
    if (const YamlNode* n = top->find("name")) {
        SF_TRY(nm, env.text(*n));
        rr.name = nm;
        name_at = env.recipe().at(*n);
    }
    if (const YamlNode* n = top->find("version")) {
        SF_TRY(vs, env.text(*n));
        rr.version = vs;
        version_at = env.recipe().at(*n);
    }
    return check_recipe_identity(rr, name_at, version_at);
}

// The outputs one combination builds, named once each (two of one name
// would write one package file twice).
Result<void> unique_names(const std::vector<v1::Evaluated>& outs) {
    std::set<std::string> names;
    for (const auto& ev : outs)
        if (!ev.skip && !names.insert(ev.out.name).second)
            return unexpected(duplicate_output(ev.out.name, ev.marks.name));
    return {};
}

}  // namespace

Result<RenderedRecipe> render_v1(const recipe::V1Recipe& r, const variant::Selection& sel) {
    SF_TRY(full, variant::load_v1(sel, r.variant_config));
    const std::vector<std::string> readable = readable_keys(r, full);
    SF_TRY(spec, narrowed(std::move(full), readable));
    RenderedRecipe rr;
    rr.format = RecipeFormat::recipe_yaml;
    rr.recipe_dir = r.dir.string();
    rr.platform = sel.platform;
    rr.variants = variant::explode(spec);
    auto combos = combinations(spec, readable, rr.variants);
    v1::ExprCache cache;
    std::vector<Item> items;
    std::vector<std::unique_ptr<v1::Env>> envs;
    std::set<std::string> staging_keys;
    for (size_t ci = 0; ci < combos.size(); ++ci) {
        auto env = std::make_unique<v1::Env>(r, sel.platform, sel.build_platform, combos[ci].typed, cache,
                                              sel.extra_environ);
        SF_TRY_VOID(env->eval_context());
        if (rr.name.empty()) {
            SF_TRY_VOID(name_and_version(*env, r.section(r.multi_output() ? "recipe" : "package"), rr));
            rr.version = variant::nightly_version(rr.version, sel);
        }
        SF_TRY(outs, v1::evaluate_outputs(*env, combos[ci].typed, staging_keys));
        SF_TRY_VOID(unique_names(outs));
        for (auto& ev : outs) ev.out.version = variant::nightly_version(ev.out.version, sel);
        for (auto& ev : outs)
            if (!ev.skip) items.push_back(Item{std::move(ev), static_cast<int>(ci)});
        envs.push_back(std::move(env));
    }
    SF_TRY_VOID(build_strings(items, envs, combos));
    SF_TRY_VOID(resolve_subpackage_pins(items));
    {
        std::vector<RenderedOutput*> all;
        for (auto& it : items) all.push_back(&it.ev.out);
        SpecMemo memo;
        nightly_specs(all, sel, memo);
    }
    rr.staging_keys.assign(staging_keys.begin(), staging_keys.end());
    SF_TRY(combo_top, group_tops(rr, envs, combos));
    std::set<std::string> dists, keys;
    for (auto& it : items) {
        if (!it.done) return fail(r.at(r.root), "output '" + it.ev.out.name + "' pins itself exactly through a cycle");
        auto& o = it.ev.out;
        SF_TRY_VOID(check_identifiers(o, it.ev.marks));
        o.variant = combos[it.combo].variant;
        o.top_variant = combo_top[it.combo];
        for (const auto& [k, v] : o.used) keys.insert(k);
        if (!dists.insert(o.dist()).second) continue;
        rr.outputs.push_back(std::move(o));
    }
    rr.used_keys.assign(keys.begin(), keys.end());
    order_for_build(rr.outputs);
    return rr;
}

}  // namespace sf::render
