// recipe.yaml: one combination's outputs evaluated (rattler-build's
// Stage0Recipe/MultiOutputRecipe::evaluate), and the static key scan.
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/rewrap.hpp"
#include "core/try.hpp"
#include "render/v1_build_keys.hpp"
#include "render/v1_detail.hpp"
#include "render/v1_scalar.hpp"
#include "types/identifiers.hpp"
#include "util/strings.hpp"

namespace sf::render::v1 {

using jinja::Value;
using recipe::YamlNode;

std::string normalized(std::string key) {
    for (char& c : key)
        if (c == '-' || c == '.') c = '_';
    return key;
}

Value typed_value(const std::string& s, variant::ScalarTyping typing) {
    switch (typing) {
        case variant::ScalarTyping::marked_yaml: return marked_yaml_scalar(s);
        case variant::ScalarTyping::serde_yaml: return serde_yaml_scalar(s);
        case variant::ScalarTyping::text: break;
    }
    return Value(s);
}

nlohmann::json to_json_value(const Value& v) {
    if (v.is_bool()) return v.as_bool();
    if (v.is_int()) return v.as_int();
    if (v.is_float()) return v.as_float();
    if (v.is_none()) return nullptr;
    return to_text(v);
}

namespace {

// A requirement list: specs, pins (as types::Pin) and free-spec names.
struct ReqList {
    std::vector<types::Dependency> deps;
    std::set<std::string> free;  // names without a version, normalized
};

// A bound is an `x.x` expression or a version (rattler-build's PinBound);
// null is no bound; an empty string is an error there, and here.
Result<void> pin_bound(const Value* v, std::string& expr, std::string& version, const char* what, const SourceLoc& at) {
    if (!v) return {};
    expr.clear();
    if (v->is_none()) return {};
    std::string s(str::trim(to_text(*v)));
    if (s.empty()) return fail(at, std::string(what) + " is an empty string", "give an expression like 'x.x', a version, or None");
    if (s.find_first_not_of("x.") == std::string::npos) expr = s;
    else version = s;
    return {};
}

Result<types::Pin> to_pin(const Value& d, const SourceLoc& at) {
    types::Pin p;
    p.kind = d.get(kPinKey)->as_string() == "pin_compatible" ? types::Pin::Kind::compatible : types::Pin::Kind::subpackage;
    p.name = d.get("name")->as_string();
    p.min_pin = "x.x.x.x.x.x";
    p.max_pin = "x";
    SF_TRY_VOID(pin_bound(d.get("lower_bound"), p.min_pin, p.lower_bound, "lower_bound", at));
    SF_TRY_VOID(pin_bound(d.get("upper_bound"), p.max_pin, p.upper_bound, "upper_bound", at));
    if (const Value* v = d.get("exact")) p.exact = v->truthy();
    if (const Value* v = d.get("build"); v && !v->is_none()) p.build = to_text(*v);
    return p;
}

Result<ReqList> req_list(Env& env, const YamlNode* n, const std::string& what) {
    ReqList out;
    if (!n) return out;
    SF_TRY(items, env.items(*n));
    for (const YamlNode* item : items) {
        SF_TRY(v, env.value(*item));
        if (v.is_dict() && v.get(kPinKey)) {
            SF_TRY(pin, to_pin(v, env.recipe().at(*item)));
            out.deps.emplace_back(std::move(pin));
            continue;
        }
        std::string text(str::trim(to_text(v)));
        if (text.empty() || v.is_none()) continue;  // `${{ "winreg" if win }}` off this platform
        auto dep = types::Dependency::parse(text);
        if (!dep) return fail(env.recipe().at(*item), "invalid match spec in " + what + ": '" + text + "'", dep.error().message);
        if (text.find_first_of(" =<>!~*[") == std::string::npos) out.free.insert(normalized(text));
        out.deps.push_back(std::move(*dep));
    }
    return out;
}

// Evaluates every scalar below `n` (tests, about, sources): what it reads
// counts, and a wrong expression is an error, as in rattler-build.
Result<void> touch(Env& env, const YamlNode& n) {
    if (recipe::is_conditional(n)) {
        SF_TRY(yes, env.condition(*n.find("if")));
        const YamlNode* b = yes ? n.find("then") : n.find("else");
        return b ? touch(env, *b) : Result<void>{};
    }
    if (n.is_scalar()) {
        SF_TRY(v, env.value(n));
        (void)v;
    }
    for (const auto& i : n.items) SF_TRY_VOID(touch(env, i));
    for (const auto& [k, v] : n.pairs) SF_TRY_VOID(touch(env, v));
    return {};
}

Result<nlohmann::json> to_json_tree(Env& env, const YamlNode& n) {
    if (n.is_scalar()) {
        SF_TRY(v, env.value(n));
        return to_json_value(v);
    }
    if (n.is_sequence() || recipe::is_conditional(n)) {
        nlohmann::json a = nlohmann::json::array();
        SF_TRY(items, env.items(n));
        for (const YamlNode* i : items) {
            SF_TRY(j, to_json_tree(env, *i));
            a.push_back(std::move(j));
        }
        return a;
    }
    nlohmann::json o = nlohmann::json::object();
    for (const auto& [k, v] : n.pairs) {
        SF_TRY(j, to_json_tree(env, v));
        o[k.scalar] = std::move(j);
    }
    return o;
}

Result<std::vector<std::string>> string_list(Env& env, const YamlNode* n) {
    std::vector<std::string> out;
    if (!n) return out;
    SF_TRY(items, env.items(*n));
    for (const YamlNode* i : items) {
        SF_TRY(s, env.text(*i));
        if (!s.empty()) out.push_back(std::move(s));
    }
    return out;
}

// `skip:` is one expression or a list of them; any true one skips.
Result<bool> skipped(Env& env, const YamlNode* n) {
    if (!n) return false;
    SF_TRY(items, env.items(*n));
    for (const YamlNode* i : items) {
        if (!i->is_scalar()) return fail(env.recipe().at(*i), "skip conditions must be expressions");
        SF_TRY(yes, env.skip_condition(*i));
        if (yes) return true;
    }
    return false;
}

struct BuildFields {
    const YamlNode* number = nullptr;
    const YamlNode* string = nullptr;
    const YamlNode* noarch = nullptr;
    const YamlNode* script = nullptr;
    const YamlNode* steps = nullptr;
    const YamlNode* variant = nullptr;
    const YamlNode* python = nullptr;
};

// rattler-build's build.steps (its build plan): rendered, linted and
// rerendered like any key, but not built yet; the build fails with this.
std::string steps_refusal(Env& env, const YamlNode& steps) {
    return env.recipe().at(steps).str() +
           ": build.steps is not supported by splitforge's build yet (render, lint and rerender read past it); "
           "write the steps as build.script";
}

// build.noarch and build.variant.down_prioritize_variant often read a variant
// key only some platforms define (suitesparse's microarch_level); rattler-build
// refuses the undefined name there too, and suggests a fallback.
template <typename T>
Result<T> with_fallback_hint(Result<T> r) {
    if (r || !str::ends_with(r.error().message, "is undefined")) return r;
    const std::string& m = r.error().message;
    std::string name = m.size() > 2 && m[0] == '\'' ? m.substr(1, m.find('\'', 1) - 1) : "key";
    Error e = r.error();
    e.hint = "a variant key only some platforms define? give it a fallback: " + name + " | default(...)";
    return Unexpected<Error>{std::move(e)};
}

// Whether an output takes the top level's build.script when it has none:
// rattler-build merges it into outputs that inherit the top level only.
enum class TopScript { merge, ignore };

void pick(BuildFields& f, const YamlNode* build, TopScript script = TopScript::merge) {
    if (!build || !build->is_mapping()) return;
    if (auto* x = build->find("number")) f.number = x;
    if (auto* x = build->find("string")) f.string = x;
    if (auto* x = build->find("noarch")) f.noarch = x;
    if (auto* x = build->find("script"); x && script == TopScript::merge) f.script = x;
    if (auto* x = build->find("steps"); x && script == TopScript::merge) f.steps = x;
    if (auto* x = build->find("variant")) f.variant = x;
    if (auto* x = build->find("python")) f.python = x;
}

// build.script as rattler-build reads it: a file name, inline commands (a
// string with a space or a newline, or a list), or a mapping of `file:` (no
// extension: `.sh`) or `content:`, with `env:` (variables for the script).
// A `file:` that evaluates to "" (`${{ 'b.sh' if linux else '' }}`) renders,
// as in rattler-build (Path("")), whose build then fails to resolve it: the
// output is `unbuildable`, and no default build.sh stands in for it.
// `marks`: where each env key was written.
Result<void> eval_script(Env& env, const YamlNode& n, std::string& file, std::vector<std::string>& lines,
                         std::map<std::string, std::string>& vars, std::string& unbuildable,
                         std::map<std::string, SourceLoc>& marks) {
    if (n.is_scalar()) {
        SF_TRY(s, env.text(n));
        if (s.find('\n') == std::string::npos && s.find(' ') == std::string::npos) file = s;
        else lines = str::split_lines(s);
        return {};
    }
    if (!n.is_mapping()) {
        SF_TRY(l, string_list(env, &n));
        lines = std::move(l);
        return {};
    }
    if (const YamlNode* f = n.find("file")) {
        SF_TRY(s, env.text(*f));
        if (s.empty())
            unbuildable = env.recipe().at(*f).str() +
                          ": build.script file is empty: there is no script to run (rattler-build: could not "
                          "resolve recipe file \"\")";
        else file = s.find('.', s.rfind('/') + 1) == std::string::npos ? s + ".sh" : s;
    }
    if (const YamlNode* c = n.find("content")) {
        if (!file.empty()) return fail(env.recipe().at(*c), "script has both 'file' and 'content'", "keep one of them");
        if (c->is_scalar()) {
            SF_TRY(text, env.text(*c));
            lines = str::split_lines(text);
        } else {
            SF_TRY(l, string_list(env, c));
            lines = std::move(l);
        }
    }
    if (const YamlNode* e = n.find("env")) {
        if (!e->is_mapping()) return fail(env.recipe().at(*e), "script env must be a mapping of names to values");
        for (const auto& [k, v] : e->pairs) {
            if (!v.is_scalar()) return fail(env.recipe().at(v), "script env value of '" + k.scalar + "' must be a string");
            SF_TRY(s, env.text(v));
            vars[k.scalar] = s;
            marks.emplace(k.scalar, env.recipe().at(k));
        }
    }
    for (const auto& [k, v] : n.pairs)
        if (k.scalar != "file" && k.scalar != "content" && k.scalar != "env") SF_TRY_VOID(touch(env, v));
    return {};
}

// rattler-build's default script: with no file, content or lines given,
// build.sh in the recipe directory when there is one (else nothing runs).
void default_script(const recipe::V1Recipe& r, std::string& file, const std::vector<std::string>& lines,
                    const std::string& unbuildable) {
    std::error_code ec;
    if (file.empty() && lines.empty() && unbuildable.empty() &&
        std::filesystem::is_regular_file(r.dir / "build.sh", ec))
        file = "build.sh";
}

Result<void> eval_build(Env& env, const YamlNode* top_build, const YamlNode* own_build, Evaluated& ev,
                        TopScript top_script = TopScript::merge) {
    const recipe::V1Recipe& r = env.recipe();
    BuildFields f;
    pick(f, top_build, top_script);
    pick(f, own_build);
    SF_TRY(skip_top, skipped(env, top_build ? top_build->find("skip") : nullptr));
    SF_TRY(skip_own, skipped(env, own_build && own_build != top_build ? own_build->find("skip") : nullptr));
    ev.skip = skip_top || skip_own;
    if (f.number) {
        SF_TRY(v, env.value(*f.number));
        auto n = types::parse_build_number(to_text(v));  // meta.yaml's rule too
        if (!n) return fail(r.at(*f.number), "build number " + n.error().message, n.error().hint);
        ev.out.build_number = *n;
        ev.marks.build_number = r.at(*f.number);
    }
    if (f.noarch) {
        SF_TRY(s, with_fallback_hint(env.text(*f.noarch)));
        auto na = types::parse_noarch(s);
        if (!na) return fail(r.at(*f.noarch), "invalid noarch '" + s + "'", "expected 'python' or 'generic'");
        ev.out.noarch = *na;
    }
    if (f.string) {
        if (!f.string->is_scalar()) return fail(r.at(*f.string), "build.string must be a string");
        // Evaluated now for what it reads; rendered for real once the hash is known.
        env.set("hash", Value(std::string("0000000")));
        SF_TRY(s, env.text(*f.string));
        (void)s;
        ev.string_template = f.string->scalar;
        ev.string_node = f.string;
        ev.marks.build_string = r.at(*f.string);
    }
    if (f.script) {
        env.set_lenient(true);  // build-time names (PYTHON, ...) are not known yet
        auto ok =
            eval_script(env, *f.script, ev.out.script, ev.out.script_lines, ev.out.script_env, ev.out.unbuildable,
                        ev.marks.env_keys);
        env.set_lenient(false);
        SF_TRY_VOID(ok);
    }
    if (f.steps) ev.out.unbuildable = steps_refusal(env, *f.steps);
    if (f.python && f.python->is_mapping()) {  // build.python: what the packager's python step reads
        SF_TRY(eps, string_list(env, f.python->find("entry_points")));
        SF_TRY(skip, string_list(env, f.python->find("skip_pyc_compilation")));
        ev.out.post_build.entry_points = std::move(eps);
        ev.out.post_build.skip_compile_pyc = std::move(skip);
    }
    if (ev.out.unbuildable.empty()) ev.out.unbuildable = v1_unbuilt_build_keys(r, top_build, own_build);
    if (f.variant && f.variant->is_mapping()) {
        SF_TRY(uk, string_list(env, f.variant->find("use_keys")));
        SF_TRY(ik, string_list(env, f.variant->find("ignore_keys")));
        ev.use_keys = std::move(uk);
        ev.ignore_keys = std::move(ik);
        if (const auto* dp = f.variant->find("down_prioritize_variant"))
            SF_TRY_VOID(with_fallback_hint(touch(env, *dp)));
    }
    return {};
}

Result<void> eval_requirements(Env& env, const YamlNode* req, Evaluated& ev, std::set<std::string>& free) {
    if (!req || !req->is_mapping()) return {};
    auto& R = ev.out.requirements;
    struct Slot {
        const char* key;
        std::vector<types::Dependency>* into;
    } slots[] = {{"build", &R.build}, {"host", &R.host}, {"run", &R.run}, {"run_constraints", &R.run_constrained}};
    for (auto& s : slots) {
        SF_TRY(l, req_list(env, req->find(s.key), std::string("requirements.") + s.key));
        *s.into = std::move(l.deps);
        // rattler-build's free specs are those of build and host only.
        if (s.into == &R.build || s.into == &R.host) free.insert(l.free.begin(), l.free.end());
    }
    if (const YamlNode* re = req->find("run_exports")) {
        auto& X = ev.out.run_exports;
        if (re->is_mapping() && !recipe::is_conditional(*re)) {
            struct { const char* key; std::vector<types::Dependency>* into; } kinds[] = {
                {"weak", &X.weak}, {"strong", &X.strong}, {"noarch", &X.noarch},
                {"weak_constraints", &X.weak_constrains}, {"strong_constraints", &X.strong_constrains}};
            for (auto& k : kinds) {
                SF_TRY(l, req_list(env, re->find(k.key), std::string("run_exports.") + k.key));
                *k.into = std::move(l.deps);
            }
        } else {
            SF_TRY(l, req_list(env, re, "run_exports"));
            X.weak = std::move(l.deps);
        }
    }
    if (const YamlNode* ig = req->find("ignore_run_exports"); ig && ig->is_mapping()) {
        SF_TRY(by_name, string_list(env, ig->find("by_name")));
        SF_TRY(from, string_list(env, ig->find("from_package")));
        ev.out.ignore_run_exports = std::move(by_name);
        ev.out.ignore_run_exports_from = std::move(from);
    }
    return {};
}

// A script test's `requirements.run` and `files` (recipe/source).
Result<void> eval_test_needs(Env& env, const YamlNode& t, types::Test& test) {
    if (const YamlNode* req = t.find("requirements"); req && req->is_mapping()) {
        SF_TRY(l, req_list(env, req->find("run"), "tests.requirements.run"));
        for (auto& d : l.deps) test.requires_.push_back(std::move(d));
    }
    if (const YamlNode* files = t.find("files"); files && files->is_mapping()) {
        SF_TRY(recipe_files, string_list(env, files->find("recipe")));
        SF_TRY(source_files, string_list(env, files->find("source")));
        for (auto& f : recipe_files) test.files.push_back(std::move(f));
        for (auto& f : source_files) test.source_files.push_back(std::move(f));
    }
    return {};
}

// rattler-build's package_contents test: each section a list of globs that
// must match, or {exists: [...], not_exists: [...]}; `strict: true`.
Result<void> eval_package_contents(Env& env, const YamlNode& pc, types::Test& test) {
    for (const char* section : {"include", "bin", "lib", "site_packages", "files"}) {
        const YamlNode* n = pc.find(section);
        if (!n) continue;
        types::Test::ContentGlobs g;
        if (n->is_mapping()) {
            SF_TRY(exists, string_list(env, n->find("exists")));
            SF_TRY(not_exists, string_list(env, n->find("not_exists")));
            g.exists = std::move(exists);
            g.not_exists = std::move(not_exists);
        } else {
            SF_TRY(exists, string_list(env, n));
            g.exists = std::move(exists);
        }
        if (!g.exists.empty() || !g.not_exists.empty()) test.contents[section] = std::move(g);
    }
    if (const YamlNode* st = pc.find("strict")) {
        SF_TRY(v, env.value(*st));
        if (!v.is_bool()) return fail(env.recipe().at(*st), "package_contents strict must be true or false");
        test.contents_strict = v.as_bool();
    }
    return {};
}

// One tests: item (python, package_contents, script or downstream) as a Test.
Result<types::Test> eval_test_item(Env& env, const YamlNode& t) {
    types::Test one;
    if (const YamlNode* py = t.find("python"); py && py->is_mapping()) {
        SF_TRY(imports, string_list(env, py->find("imports")));
        one.imports = std::move(imports);
        one.pip_check = true;  // rattler-build's default
        if (const YamlNode* pc = py->find("pip_check")) {
            SF_TRY(v, env.value(*pc));
            if (!v.is_bool()) return fail(env.recipe().at(*pc), "pip_check must be true or false");
            one.pip_check = v.as_bool();
        }
    }
    if (const YamlNode* pc = t.find("package_contents"); pc && pc->is_mapping())
        SF_TRY_VOID(eval_package_contents(env, *pc, one));
    if (const YamlNode* ds = t.find("downstream")) {
        SF_TRY(spec, env.text(*ds));
        if (str::trim(spec).empty())
            return fail(env.recipe().at(*ds), "a downstream test needs a package spec", "write 'downstream: <name>'");
        one.downstream = std::string(str::trim(spec));
    }
    if (const YamlNode* sc = t.find("script")) {
        env.set_lenient(true);
        auto cmds = sc->is_mapping() ? string_list(env, sc->find("content")) : string_list(env, sc);
        env.set_lenient(false);
        if (!cmds) return unexpected(cmds.error());
        one.commands = std::move(*cmds);
        SF_TRY_VOID(eval_test_needs(env, t, one));
    }
    for (const auto& [k, v] : t.pairs)
        if (k.scalar != "script") SF_TRY_VOID(touch(env, v));
    return one;
}

// info/test holds every item's commands, imports, requirements and files.
void merge_test(types::Test& all, const types::Test& one) {
    all.imports.insert(all.imports.end(), one.imports.begin(), one.imports.end());
    all.commands.insert(all.commands.end(), one.commands.begin(), one.commands.end());
    all.requires_.insert(all.requires_.end(), one.requires_.begin(), one.requires_.end());
    all.files.insert(all.files.end(), one.files.begin(), one.files.end());
    all.source_files.insert(all.source_files.end(), one.source_files.begin(), one.source_files.end());
    all.pip_check = all.pip_check || one.pip_check;
}

// Each tests: item as its own Test (the engine gives each a fresh env, as
// rattler-build does), and all of them merged into the output's test (info/test).
Result<void> eval_tests(Env& env, const YamlNode* tests, Evaluated& ev) {
    if (!tests) return {};
    SF_TRY(items, env.items(*tests));
    for (const YamlNode* t : items) {
        if (!t->is_mapping()) continue;
        SF_TRY(one, eval_test_item(env, *t));
        if (one.empty()) continue;
        merge_test(ev.out.test, one);
        ev.out.test_elements.push_back(std::move(one));
    }
    return {};
}

// The used variant: variant keys read (here or by the context), free specs
// and the always-used keys; context names shadow variant keys they did not read.
nlohmann::json used_variant(const Env& env, const Vars& variant, const std::set<std::string>& free, bool noarch_python) {
    nlohmann::json used = nlohmann::json::object();
    for (const auto& [k, v] : variant) {
        if (env.is_context_name(k) && !env.read_by_context().count(k)) continue;
        if (noarch_python && k == "python") continue;
        bool always = std::find(std::begin(kAlwaysUsed), std::end(kAlwaysUsed), k) != std::end(kAlwaysUsed);
        if (env.accessed().count(k) || env.read_by_context().count(k) || free.count(normalized(k)) || always)
            used[k] = to_json_value(v);
    }
    return used;
}

// `inherit: name` or `inherit: {from: name, run_exports: false}`; null or
// absent: the top level.
struct Inherit {
    std::string from;
    bool run_exports = true;
};

Result<Inherit> inherit_of(Env& env, const YamlNode* inh) {
    Inherit out;
    if (!inh || inh->is_null()) return out;
    if (!inh->is_mapping()) {
        SF_TRY(name, env.text(*inh));
        out.from = name;
        return out;
    }
    const YamlNode* from = inh->find("from");
    if (!from) return fail(env.recipe().at(*inh), "inherit needs 'from:'");
    SF_TRY(name, env.text(*from));
    out.from = name;
    if (const YamlNode* re = inh->find("run_exports")) {
        SF_TRY(v, env.value(*re));
        if (!v.is_bool()) return fail(env.recipe().at(*re), "inherit run_exports must be true or false");
        out.run_exports = v.as_bool();
    }
    return out;
}

// An output's name, and its version or the recipe's.
Result<void> eval_name_version(Env& env, const YamlNode& o, Evaluated& ev) {
    const recipe::V1Recipe& r = env.recipe();
    const YamlNode* pkg = o.find("package");
    SF_TRY(name, env.text(*pkg->find("name")));
    ev.out.name = name;
    const YamlNode* ver = pkg->find("version");
    if (!ver && r.multi_output())
        if (const YamlNode* rec = r.root.find("recipe")) ver = rec->find("version");
    if (!ver) return fail(r.at(*pkg), "missing field 'version' for output '" + name + "'", "set package.version or recipe.version");
    SF_TRY(version, env.text(*ver));
    ev.out.version = version;
    // A computed build string and an unset number are the output's own.
    ev.marks.output = ev.marks.build_string = ev.marks.build_number = r.at(*pkg);
    ev.marks.name = r.at(*pkg->find("name"));
    ev.marks.version = r.at(*ver);
    return {};
}

// The used variant of an output: its own, the staging output's it inherits,
// noarch's target_platform and the virtual packages it runs on.
void finish_used(Env& env, const Vars& variant, const Staging* st, const std::set<std::string>& free, Evaluated& ev) {
    ev.used = used_variant(env, variant, free, ev.out.noarch == types::NoArch::python);
    if (st)
        for (auto& [k, v] : st->used.items())
            if (!ev.used.contains(k)) ev.used[k] = v;
    if (ev.out.noarch != types::NoArch::none) ev.used["target_platform"] = "noarch";
    // Virtual packages the output runs on (`__glibc >=2.17`) split builds too.
    for (const auto& d : ev.out.requirements.run)
        if (d.spec() && str::starts_with(d.name(), "__")) ev.used[d.name()] = d.str();
}

Result<Evaluated> eval_package(Env& env, const Vars& variant, const YamlNode& o, const std::map<std::string, Staging>& stagings) {
    const recipe::V1Recipe& r = env.recipe();
    const YamlNode& root = r.root;
    bool multi = r.multi_output();
    env.clear_accessed();
    Evaluated ev;
    SF_TRY_VOID(eval_name_version(env, o, ev));
    SF_TRY(inh, inherit_of(env, multi ? o.find("inherit") : nullptr));
    const std::string& inherit = inh.from;
    // A name that evaluates to "" names no staging output (rattler-build:
    // "Staging cache '' not found"), it does not mean the top level.
    if (inherit.empty() && multi && o.find("inherit") && !o.find("inherit")->is_null())
        return fail(r.at(*o.find("inherit")), "staging output '' not found", "inherit names a '- staging:' output of this recipe");
    ev.out.inherits = inherit;
    ev.out.inherit_run_exports = inh.run_exports;
    SF_TRY_VOID(eval_build(env, multi ? root.find("build") : nullptr, o.find("build"), ev,
                           inherit.empty() ? TopScript::merge : TopScript::ignore));
    // Only a single-output recipe finds build.sh by itself; an output of a
    // multi-output recipe runs nothing unless it names a script.
    if (!multi) default_script(r, ev.out.script, ev.out.script_lines, ev.out.unbuildable);
    std::set<std::string> free;
    SF_TRY_VOID(eval_requirements(env, o.find("requirements"), ev, free));
    if (multi && inherit.empty()) {
        if (const auto* s = root.find("source")) SF_TRY_VOID(touch(env, *s));
        SF_TRY_VOID(eval_tests(env, root.find("tests"), ev));
    }
    if (const auto* s = o.find("source")) SF_TRY_VOID(touch(env, *s));
    SF_TRY_VOID(eval_tests(env, o.find("tests"), ev));
    const YamlNode* about = o.find("about");
    if (!about && multi) about = root.find("about");
    if (about) {
        SF_TRY(j, to_json_tree(env, *about));
        ev.out.about = std::move(j);
    }
    const Staging* st = nullptr;
    if (!inherit.empty()) {
        auto it = stagings.find(inherit);
        if (it == stagings.end())
            return fail(r.at(*o.find("inherit")), "staging output '" + inherit + "' not found",
                        "inherit names a '- staging:' output of this recipe");
        st = &it->second;
        free.insert(st->free_specs.begin(), st->free_specs.end());
    }
    finish_used(env, variant, st, free, ev);
    return ev;
}

Result<Staging> eval_staging(Env& env, const Vars& variant, const YamlNode& o) {
    env.clear_accessed();
    Staging st;
    SF_TRY(name, env.text(*o.find("staging")->find("name")));
    st.name = name;
    Evaluated tmp;
    SF_TRY_VOID(eval_build(env, nullptr, o.find("build"), tmp));
    SF_TRY_VOID(eval_requirements(env, o.find("requirements"), tmp, st.free_specs));
    if (const auto* s = env.recipe().root.find("source")) SF_TRY_VOID(touch(env, *s));
    if (const auto* s = o.find("source")) SF_TRY_VOID(touch(env, *s));
    st.requirements = std::move(tmp.out.requirements);
    st.used = used_variant(env, variant, st.free_specs, false);
    return st;
}

Result<std::string> field(Env& env, const YamlNode& src, const char* key) {
    const YamlNode* n = src.find(key);
    if (!n) return std::string();
    return env.text(*n);
}

Result<types::Source> one_source(Env& env, const YamlNode& n) {
    const recipe::V1Recipe& r = env.recipe();
    if (!n.is_mapping()) return fail(r.at(n), "a source must be a mapping", "give 'url:', 'git:' or 'path:'");
    types::Source s;
    if (const YamlNode* url = n.find("url")) {
        SF_TRY(urls, string_list(env, url));
        if (urls.empty()) return fail(r.at(*url), "source url is empty");
        s.url = urls.front();
        s.mirrors.assign(urls.begin() + 1, urls.end());
    }
    SF_TRY(sha256, field(env, n, "sha256"));
    SF_TRY(md5, field(env, n, "md5"));
    SF_TRY(fn, field(env, n, "file_name"));
    SF_TRY(path, field(env, n, "path"));
    SF_TRY(git, field(env, n, "git"));
    if (auto ok = types::check_git_url("git", git); !ok) return rewrap(ok.error(), r.at(*n.find("git")));
    SF_TRY(folder, field(env, n, "target_directory"));
    s.sha256 = sha256, s.md5 = md5, s.fn = fn, s.path = path, s.git_url = git, s.folder = folder;
    for (const char* rev : {"rev", "tag", "branch"}) {
        SF_TRY(v, field(env, n, rev));
        if (auto ok = types::check_git_rev(rev, v); !ok) return rewrap(ok.error(), r.at(*n.find(rev)));
        if (!v.empty()) s.git_rev = v;
    }
    if (s.url.empty() && s.path.empty() && s.git_url.empty())
        return fail(r.at(n), "a source needs 'url:', 'git:' or 'path:'");
    SF_TRY(patches, string_list(env, n.find("patches")));
    s.patches = std::move(patches);
    return s;
}

}  // namespace

Result<std::vector<types::Source>> eval_sources(Env& env, const YamlNode* source) {
    std::vector<types::Source> out;
    if (!source) return out;
    SF_TRY(items, env.items(*source));
    for (const YamlNode* i : items) {
        SF_TRY(s, one_source(env, *i));
        out.push_back(std::move(s));
    }
    return out;
}

namespace {

// One `- staging:` output as the engine builds it: the top level's sources
// and its own, its build and host requirements, its script (or build.sh).
Result<StagingOutput> staging_output(Env& env, const YamlNode& o, const std::vector<types::Source>& top_sources) {
    StagingOutput st;
    SF_TRY(name, env.text(*o.find("staging")->find("name")));
    st.name = name;
    SF_TRY(own, eval_sources(env, o.find("source")));
    st.sources = top_sources;
    st.sources.insert(st.sources.end(), own.begin(), own.end());
    Evaluated tmp;
    std::set<std::string> free;
    SF_TRY_VOID(eval_requirements(env, o.find("requirements"), tmp, free));
    st.requirements.build = std::move(tmp.out.requirements.build);
    st.requirements.host = std::move(tmp.out.requirements.host);
    st.ignore_run_exports = std::move(tmp.out.ignore_run_exports);
    st.ignore_run_exports_from = std::move(tmp.out.ignore_run_exports_from);
    const YamlNode* build = o.find("build");
    if (const YamlNode* script = build && build->is_mapping() ? build->find("script") : nullptr) {
        env.set_lenient(true);  // build-time names are not known yet
        IdentifierMarks marks;
        marks.output = env.recipe().at(o);
        auto ok = eval_script(env, *script, st.script, st.script_lines, st.script_env, st.unbuildable, marks.env_keys);
        env.set_lenient(false);
        SF_TRY_VOID(ok);
        SF_TRY_VOID(check_script_env(st.script_env, marks, st.name + ": "));
    }
    if (const YamlNode* steps = build && build->is_mapping() ? build->find("steps") : nullptr)
        st.unbuildable = steps_refusal(env, *steps);
    if (st.unbuildable.empty()) st.unbuildable = v1_unbuilt_build_keys(env.recipe(), nullptr, build);
    default_script(env.recipe(), st.script, st.script_lines, st.unbuildable);
    return st;
}

}  // namespace

Result<TopVariant> eval_top(Env& env, const variant::Variant& variant) {
    const recipe::V1Recipe& r = env.recipe();
    TopVariant top;
    top.variant = variant;
    SF_TRY(srcs, eval_sources(env, r.section("source")));
    top.sources = std::move(srcs);
    if (!r.multi_output()) return top;
    SF_TRY(outputs, env.items(*r.section("outputs")));
    for (const YamlNode* o : outputs) {
        if (!o->find("staging")) continue;
        SF_TRY(st, staging_output(env, *o, top.sources));
        // The plan decides Python and CUDA from all staging requirements.
        for (auto [from, into] : {std::pair{&st.requirements.build, &top.requirements.build},
                                  std::pair{&st.requirements.host, &top.requirements.host}})
            into->insert(into->end(), from->begin(), from->end());
        top.stagings.push_back(std::move(st));
    }
    return top;
}

Result<std::vector<Evaluated>> evaluate_outputs(Env& env, const Vars& variant, std::set<std::string>& staging_keys) {
    const recipe::V1Recipe& r = env.recipe();
    std::vector<Evaluated> out;
    if (!r.multi_output()) {
        SF_TRY(one, eval_package(env, variant, r.root, {}));
        out.push_back(std::move(one));
        return out;
    }
    SF_TRY(outputs, env.items(*r.section("outputs")));
    std::map<std::string, Staging> stagings;
    for (const YamlNode* o : outputs)
        if (o->find("staging")) {
            SF_TRY(st, eval_staging(env, variant, *o));
            for (auto& [k, v] : st.used.items())
                if (std::find(std::begin(kAlwaysUsed), std::end(kAlwaysUsed), k) == std::end(kAlwaysUsed))
                    staging_keys.insert(k);
            stagings[st.name] = std::move(st);
        }
    for (const YamlNode* o : outputs) {
        if (o->find("staging")) continue;
        if (!o->find("package")) return fail(r.at(*o), "an output must have either a 'staging' or a 'package' key");
        SF_TRY(ev, eval_package(env, variant, *o, stagings));
        out.push_back(std::move(ev));
    }
    return out;
}

}  // namespace sf::render::v1
