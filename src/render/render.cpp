#include "render/render.hpp"
#include "render/v1_render.hpp"
#include "recipe/v1_recipe.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <map>
#include <set>
#include <utility>

#include "core/rewrap.hpp"
#include "render/build_keys.hpp"
#include "render/context.hpp"
#include "render/hash.hpp"
#include "render/meta.hpp"
#include "render/pins.hpp"
#include "render/v0_schema.hpp"
#include "render/validate.hpp"
#include "render/yaml_memo.hpp"
#include "render/pin_text.hpp"
#include "types/identifiers.hpp"
#include "types/version.hpp"
#include "util/strings.hpp"
#include "variant/used_vars.hpp"

namespace sf::render {
namespace {

std::string str_of(const Meta& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_null()) return "";
    return v.dump();
}

const Meta& sub(const Meta& m, const char* key) {
    static const Meta empty = Meta::object();
    return m.is_object() && m.contains(key) && m[key].is_object() ? m[key] : empty;
}

// conda-build's build/script_env: NAME passes the variable from this
// process's environment to the script (an unset one is left out, as
// conda-build leaves it out, warning when it builds), NAME=VALUE sets it.
std::map<std::string, std::string> script_env_of(const Meta& build) {
    std::map<std::string, std::string> out;
    if (!build.contains("script_env") || build["script_env"].is_null()) return out;
    for (const auto& item : string_list(build["script_env"])) {
        if (auto eq = item.find('='); eq != std::string::npos) out[item.substr(0, eq)] = item.substr(eq + 1);
        else if (const char* v = std::getenv(item.c_str())) out[item] = v;
    }
    return out;
}

std::vector<types::Source> sources_of(const Meta& meta) {
    std::vector<types::Source> out;
    if (!meta.contains("source")) return out;
    Meta list = meta["source"].is_array() ? meta["source"] : Meta::array({meta["source"]});
    for (const auto& s : list) {
        if (!s.is_object()) continue;
        types::Source src;
        auto get = [&](const char* k) { return s.contains(k) ? str_of(s[k].is_array() && !s[k].empty() ? s[k][0] : s[k]) : ""; };
        src.url = get("url");
        if (s.contains("url") && s["url"].is_array())  // conda-build tries each url in order
            for (size_t i = 1; i < s["url"].size(); ++i) src.mirrors.push_back(str_of(s["url"][i]));
        src.sha256 = get("sha256");
        src.md5 = get("md5");
        src.fn = get("fn");
        src.path = get("path");
        src.git_url = get("git_url");
        src.git_rev = get("git_rev");
        if (src.git_rev.empty()) src.git_rev = get("git_tag");
        if (src.git_rev.empty()) src.git_rev = get("git_branch");
        src.folder = get("folder");
        if (s.contains("patches")) src.patches = string_list(s["patches"]);
        out.push_back(std::move(src));
    }
    return out;
}

// The recipe lines of the top-level `source:` key and of each of its list
// items, from the text as written (before Jinja and selectors).
std::pair<int, std::vector<int>> source_lines(const std::string& text) {
    auto lines = str::split(text, '\n');
    int key = 0;
    std::vector<int> items;
    size_t item_indent = std::string::npos;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        size_t ind = l.find_first_not_of(' ');
        if (ind == std::string::npos || l[ind] == '#') continue;
        if (ind == 0) {
            if (key) break;  // the next top-level key ends the block
            if (str::starts_with(l, "source:")) key = static_cast<int>(i) + 1;
            continue;
        }
        if (!key || l[ind] != '-' || (item_indent != std::string::npos && ind != item_indent)) continue;
        item_indent = ind;
        items.push_back(static_cast<int>(i) + 1);
    }
    return {key, items};
}

// Each source remembers its recipe line: its list item's when the rendered
// list has as many entries as the text (no selector or loop changed it),
// else the `source:` key's.
std::vector<types::Source> sources_of(const Meta& meta, const recipe::RawRecipe* raw) {
    std::vector<types::Source> out = sources_of(meta);
    if (!raw) return out;
    auto [key, items] = source_lines(raw->text);
    for (size_t i = 0; i < out.size(); ++i)
        out[i].where = SourceLoc{raw->meta_file, items.size() == out.size() ? items[i] : key};
    return out;
}

// The line of `key:` in the block that starts at line `start` (the block's
// own line, `- key:` or `key:`, then the lines indented deeper); `start`
// when no line of it names the key.
int key_line(const std::vector<std::string>& lines, int start, std::string_view key) {
    if (start <= 0 || static_cast<size_t>(start) > lines.size()) return start;
    size_t base = lines[static_cast<size_t>(start) - 1].find_first_not_of(' ');
    for (size_t i = static_cast<size_t>(start) - 1; i < lines.size(); ++i) {
        std::string_view l = lines[i];
        size_t ind = l.find_first_not_of(' ');
        if (ind == std::string::npos || l[ind] == '#') continue;
        if (i + 1 > static_cast<size_t>(start) && ind <= base) break;
        l.remove_prefix(ind);
        if (str::starts_with(l, "- ")) l = str::trim(l.substr(2));
        if (str::starts_with(l, key) && l.substr(key.size(), 1) == ":") return static_cast<int>(i) + 1;
    }
    return start;
}

// A source's git_url, git_rev, git_tag and git_branch as types::check_git_*
// allow them; the error is at the key's line. `srcs` are sources_of(meta, raw).
Result<void> check_git_fields(const Meta& meta, const std::vector<types::Source>& srcs, const recipe::RawRecipe* raw) {
    if (!meta.contains("source")) return {};
    Meta list = meta["source"].is_array() ? meta["source"] : Meta::array({meta["source"]});
    std::vector<std::string> lines = raw ? str::split(raw->text, '\n') : std::vector<std::string>{};
    size_t k = 0;
    for (const auto& s : list) {
        if (!s.is_object()) continue;
        SourceLoc where = k < srcs.size() ? srcs[k].where : SourceLoc{};
        ++k;
        for (const char* key : {"git_url", "git_rev", "git_tag", "git_branch"}) {
            if (!s.contains(key)) continue;
            std::string v = str_of(s[key].is_array() && !s[key].empty() ? s[key][0] : s[key]);
            auto ok = key == std::string_view("git_url") ? types::check_git_url(key, v) : types::check_git_rev(key, v);
            if (!ok) {
                SourceLoc at = where;
                at.line = key_line(lines, where.line, key);
                at.col = 0;
                return rewrap(ok.error(), at);
            }
        }
    }
    return {};
}

// package/name, package/version and build/number of a rendered meta.yaml,
// read from the lines themselves: a full YAML parse is not needed for three
// scalars, and this runs once per variant.
PackageInfo package_info(const std::string& text) {
    PackageInfo pkg;
    std::string_view section;
    for (std::string_view line : str::split_line_views(text)) {
        if (line.empty() || line[0] == '#') continue;
        if (!std::isspace(static_cast<unsigned char>(line[0]))) {
            section = str::trim(line.substr(0, line.find(':')));
            continue;
        }
        if (section != "package" && section != "build") continue;
        std::string_view t = str::trim(line);
        auto colon = t.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view key = str::trim(t.substr(0, colon));
        std::string_view value = str::trim(t.substr(colon + 1));
        if (auto hash = value.find(" #"); hash != std::string_view::npos) value = str::trim(value.substr(0, hash));
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
            value = value.substr(1, value.size() - 2);
        if (section == "package" && key == "name" && pkg.name.empty()) pkg.name = value;
        if (section == "package" && key == "version" && pkg.version.empty()) pkg.version = value;
        if (section == "build" && key == "number" && line.find_first_not_of(' ') == 2) pkg.build_number = value;
    }
    return pkg;
}

}  // namespace

struct RenderCache {
    const recipe::RawRecipe* raw = nullptr;
    std::string raw_text;
    TextCache texts;
    std::map<std::string, jinja::Template> templates;  // by selector outcomes
    YamlMemo yaml;
    SpecMemo specs;
    std::map<std::string, std::unique_ptr<variant::UsedVarScanner>> scanners;  // by key set

    void bind(const recipe::RawRecipe& r) {
        if (raw == &r && raw_text == r.text) return;
        *this = RenderCache{};
        raw = &r;
        raw_text = r.text;
    }
};

std::shared_ptr<RenderCache> make_render_cache() { return std::make_shared<RenderCache>(); }

namespace {

// One rendering of meta.yaml under one variant.
struct Pass {
    jinja::Context ns;
    VariantText vt;
};

class Renderer {
public:
    Renderer(const recipe::RawRecipe& raw, const variant::Selection& sel, RenderCache& cache, RenderOptions opts)
        : raw_(raw), sel_(sel), opts_(opts), cache_(cache), texts_(cache.texts), templates_(cache.templates), yaml_(cache.yaml) {
        cache_.bind(raw);
    }

    Result<RenderedRecipe> run();

private:
    Result<const Pass*> pass_for(const variant::Variant& v);
    Result<Meta> render_meta(const recipe::Selected& sel, const std::string& key, const variant::Variant& v,
                             const jinja::Context& ns);
    Result<RenderedOutput> to_output(const VariantText& vt, const OutputMeta& om, const variant::Variant& v,
                                     const std::set<std::string>& used);
    // A list of `section` as typed dependencies; `where` names it in messages.
    Result<std::vector<types::Dependency>> dependency_list(const Meta& section, const char* key, const std::string& where);
    Result<Requirements> requirements_of(const Meta& reqs, const std::string& where);
    Result<types::RunExportDeps> run_exports_of(const Meta& run_exports, const std::string& where);
    void order_outputs(std::vector<RenderedOutput>& outs);

    const recipe::RawRecipe& raw_;
    // The recipe reads PKG_NAME, PKG_VERSION or PKG_BUILDNUM (PKG_HASH alone
    // is a placeholder and needs no pre-render).
    const bool reads_pkg_info_ = raw_.text.find("PKG_NAME") != std::string::npos ||
                                 raw_.text.find("PKG_VERSION") != std::string::npos ||
                                 raw_.text.find("PKG_BUILDNUM") != std::string::npos;
    const variant::Selection& sel_;
    RenderOptions opts_;
    Diagnostics diag_{sel_.strict};
    variant::CombinedSpec spec_;
    variant::UsedVarScanner* scanner_ = nullptr;
    std::optional<jinja::Context> ns_base_;  // the environment is read once per render
    std::vector<std::pair<variant::Variant, std::unique_ptr<Pass>>> passes_;
    RenderCache& cache_;
    TextCache& texts_;
    std::map<std::string, jinja::Template>& templates_;
    YamlMemo& yaml_;
};

Result<Meta> Renderer::render_meta(const recipe::Selected& sel, const std::string& key,
                                   const variant::Variant& v, const jinja::Context& ns) {
    // Unselected lines are dropped, not blanked, as conda-build drops them
    // (a folded block scalar must not gain empty lines); messages map lines
    // back through sel.source_line.
    auto at_source = [&](Error e) {
        if (e.loc.file == raw_.meta_file && e.loc.line > 0 && static_cast<size_t>(e.loc.line) <= sel.source_line.size())
            e.loc.line = sel.source_line[static_cast<size_t>(e.loc.line) - 1];
        return unexpected(std::move(e));
    };
    auto tit = templates_.find(key);
    if (tit == templates_.end()) {
        auto t = jinja::Template::parse(sel.text, {raw_.meta_file, 1, 1});
        if (!t) return at_source(t.error());
        tit = templates_.emplace(key, std::move(*t)).first;
    }
    const jinja::Template& tmpl = tit->second;
    PackageInfo pkg;
    std::string recipe_dir = raw_.dir.empty() ? "" : std::filesystem::absolute(raw_.dir).string();
    const jinja::Context vctx = variant_context(v, ns, recipe_dir);
    if (reads_pkg_info_) {
        // PKG_NAME/VERSION/BUILDNUM come from the recipe itself: read them
        // from a lenient rendering first.
        auto ctx = package_context(vctx, v, pkg, jinja::Undefinedness::lenient);
        if (auto text = tmpl.render(ctx)) pkg = package_info(*text);
    }
    auto ctx = package_context(vctx, v, pkg, opts_.smithy ? jinja::Undefinedness::lenient : jinja::Undefinedness::strict);
    auto text = tmpl.render(ctx);
    if (!text) return at_source(text.error());
    auto parsed = yaml_.parse(*text, raw_.meta_file, sel.source_line, &diag_);
    if (!parsed) return unexpected(parsed.error());
    if (!parsed->is_object())
        return fail(SourceLoc{raw_.meta_file, 1}, "meta.yaml must be a mapping (package:, build:, ...)");
    Meta meta = std::move(*parsed);
    const Meta& package = sub(meta, "package");
    if (str_of(package.value("name", Meta(""))).empty())
        return fail(SourceLoc{raw_.meta_file, 1}, "package/name is missing", "add package: name: <name>");
    return meta;
}

Result<const Pass*> Renderer::pass_for(const variant::Variant& v) {
    for (const auto& [pv, p] : passes_)
        if (pv == v) return p.get();
    auto pass = std::make_unique<Pass>();
    if (!ns_base_)
        ns_base_ = recipe::selector_base(sel_.platform.name(), sel_.build_platform.name(), sel_.extra_environ);
    auto layer = recipe::selector_layer(*ns_base_, v.as_map());  // ns_base_ outlives the passes
    if (!layer) return fail(SourceLoc{raw_.meta_file}, layer.error().message, layer.error().hint);
    pass->ns = std::move(*layer);
    std::map<std::string, bool> outcomes;
    auto sel = recipe::apply_selectors(raw_.lines, pass->ns, raw_.meta_file, &texts_.selectors, &outcomes, &diag_);
    if (!sel) return unexpected(sel.error());
    // Memo keys name a selection by a short id, not by its (long) text.
    std::string full_key;
    for (const auto& [selector, kept] : outcomes) full_key += selector + (kept ? "\x01" : "\x02");
    auto [id, fresh] = texts_.selection_ids.try_emplace(full_key, texts_.selection_ids.size());
    std::string key = "#" + std::to_string(id->second);
    auto meta = render_meta(*sel, key, v, pass->ns);
    if (!meta) return unexpected(meta.error());
    if (auto ok = check_shape(*meta, raw_.meta_file, diag_); !ok) return unexpected(ok.error());
    // conda-smithy's render does not judge the recipe's keys; lint and render do.
    if (!opts_.smithy)
        if (auto ok = check_known_keys(*meta, raw_.text, raw_.meta_file, diag_); !ok) return unexpected(ok.error());
    pass->vt.raw = &raw_;
    pass->vt.subdir = sel_.platform.name();
    pass->vt.meta = std::move(*meta);
    pass->vt.cache = &texts_;
    pass->vt.diag = &diag_;
    pass->vt.outcomes = std::move(outcomes);
    pass->vt.outcome_key = std::move(key);
    if (fresh) pass->vt.seed_selected_text(std::move(sel->text));
    passes_.emplace_back(v, std::move(pass));
    // The pass lives in a unique_ptr, so `ns` keeps its address.
    passes_.back().second->vt.ns = &passes_.back().second->ns;
    return passes_.back().second.get();
}

constexpr const char* kRequirementKeys[] = {"build", "host", "run", "run_constrained"};

Result<std::vector<types::Dependency>> Renderer::dependency_list(const Meta& section, const char* key,
                                                                 const std::string& where) {
    if (!section.is_object() || !section.contains(key)) return std::vector<types::Dependency>{};
    return dependencies_of(string_list(section[key]), where + key, diag_, cache_.specs);
}

Result<Requirements> Renderer::requirements_of(const Meta& reqs, const std::string& where) {
    Requirements r;
    std::vector<types::Dependency>* into[] = {&r.build, &r.host, &r.run, &r.run_constrained};
    for (size_t i = 0; i < 4; ++i) {
        auto d = dependency_list(reqs, kRequirementKeys[i], where + "requirements/");
        if (!d) return unexpected(d.error());
        *into[i] = std::move(*d);
    }
    return r;
}

// build/run_exports: a mapping of the five kinds, or a list (weak).
Result<types::RunExportDeps> Renderer::run_exports_of(const Meta& re, const std::string& where) {
    types::RunExportDeps out;
    if (!re.is_object()) {
        auto d = dependencies_of(string_list(re), where + "build/run_exports", diag_, cache_.specs);
        if (!d) return unexpected(d.error());
        out.weak = std::move(*d);
        return out;
    }
    std::vector<types::Dependency>* into[] = {&out.weak, &out.strong, &out.noarch, &out.weak_constrains,
                                              &out.strong_constrains};
    const char* keys[] = {"weak", "strong", "noarch", "weak_constrains", "strong_constrains"};
    for (size_t i = 0; i < 5; ++i) {
        auto d = dependency_list(re, keys[i], where + "build/run_exports/");
        if (!d) return unexpected(d.error());
        *into[i] = std::move(*d);
    }
    return out;
}

// A YAML 1.1 boolean written as a plain scalar ("false", "yes", "On").
std::optional<bool> yaml_bool(const Meta& v) {
    if (!v.is_string()) return std::nullopt;
    const std::string s = str::lower(v.get<std::string>());
    if (s == "true" || s == "yes" || s == "on" || s == "y") return true;
    if (s == "false" || s == "no" || s == "off" || s == "n") return false;
    return std::nullopt;
}

// conda-build's post.py keys (metadata.py binary_relocation(): a bool or a
// list of paths, anything else an error). error_overlinking/_overdepending
// of the top level set the whole build's config (MetaData.parse_again), an
// output's own override them for that output.
Result<PostBuildKeys> post_build_keys(const Meta& top, const Meta& build, const std::string& where) {
    PostBuildKeys k;
    for (const Meta* b : {&top, &build}) {
        if (b->contains("error_overlinking")) k.error_overlinking = meta_truthy((*b)["error_overlinking"]);
        if (b->contains("error_overdepending")) k.error_overdepending = meta_truthy((*b)["error_overdepending"]);
    }
    if (build.contains("rpaths") && !build["rpaths"].is_null()) k.rpaths = string_list(build["rpaths"]);
    if (build.contains("binary_relocation")) {
        const Meta& br = build["binary_relocation"];
        if (br.is_array()) {
            k.relocate_only = string_list(br);
        } else if (br.is_boolean()) {
            k.binary_relocation = br.get<bool>();
        } else if (auto b = yaml_bool(br)) {  // a plain scalar, as YAML 1.1 reads it
            k.binary_relocation = *b;
        } else {
            return fail(SourceLoc{where + "build/binary_relocation"},
                        "build/binary_relocation should be boolean or a list of paths (optionally globs)");
        }
    }
    if (build.contains("rpaths_patcher") && build["rpaths_patcher"].is_string())
        k.rpaths_patcher = build["rpaths_patcher"].get<std::string>();
    auto list = [&](const char* key, std::vector<std::string>& into) {
        if (build.contains(key)) into = string_list(build[key]);
    };
    list("missing_dso_whitelist", k.missing_dso_whitelist);
    list("runpath_whitelist", k.runpath_whitelist);
    list("overlinking_ignore_patterns", k.overlinking_ignore_patterns);
    list("entry_points", k.entry_points);
    list("skip_compile_pyc", k.skip_compile_pyc);
    return k;
}

Result<RenderedOutput> Renderer::to_output(const VariantText& vt, const OutputMeta& om, const variant::Variant& v,
                                           const std::set<std::string>& used) {
    RenderedOutput o;
    const Meta& m = om.meta;
    o.name = om.name;
    o.version = variant::nightly_version(str_of(sub(m, "package").value("version", Meta(""))), sel_);
    o.build_number = build_number(m);
    o.is_staging = !om.is_output;
    o.variant = v;
    for (const auto& k : used)
        if (const std::string* val = v.get(k)) o.used[k] = *val;
    const Meta& build = sub(m, "build");
    std::string noarch = build.contains("noarch") ? str_of(build["noarch"]) : "";
    auto na = types::parse_recipe_noarch(noarch);
    if (!na)
        return fail(SourceLoc{raw_.meta_file}, o.name + ": build/noarch: " + na.error().message, na.error().hint);
    o.noarch = *na;
    if (opts_.smithy) return o;  // conda-smithy reads the used keys and variants, nothing final
    o.hash_input = hash_contents(vt, om, used, v, spec_.specials);
    o.hash = pkg_hash(o.hash_input);
    o.build_string = build_id(vt, om, v, o.hash);
    if (!(build.contains("string") && meta_truthy(build["string"])))
        if (auto ok = check_computed_build_string(o, raw_.meta_file, diag_); !ok) return unexpected(ok.error());
    std::string where = raw_.meta_file + ": " + o.name + ": ";
    auto reqs = requirements_of(sub(m, "requirements"), where);
    if (!reqs) return unexpected(reqs.error());
    o.requirements = std::move(*reqs);
    {
        // Before finalizing, conda-build's pins are bare names, and a bare
        // name that is a variant key then gets the variant's version.
        const Meta& rq = sub(m, "requirements");
        Meta nonfinal = Meta::object();
        for (const char* k : kRequirementKeys) {
            Meta l = Meta::array();
            if (rq.contains(k))
                for (const auto& r : string_list(rq[k])) l.push_back(strip_pin_placeholder(r));
            nonfinal[k] = std::move(l);
        }
        for (const char* env : {"build", "host", "run"}) insert_variant_versions(nonfinal, v, env);
        auto nf = requirements_of(nonfinal, where);
        if (!nf) return unexpected(nf.error());
        o.nonfinal_requirements = std::move(*nf);
    }
    if (build.contains("run_exports")) {
        auto re = run_exports_of(build["run_exports"], where);
        if (!re) return unexpected(re.error());
        o.run_exports = std::move(*re);
    }
    if (build.contains("ignore_run_exports")) o.ignore_run_exports = string_list(build["ignore_run_exports"]);
    if (build.contains("ignore_run_exports_from")) o.ignore_run_exports_from = string_list(build["ignore_run_exports_from"]);
    if (auto pb = post_build_keys(sub(vt.meta, "build"), build, where); !pb)
        return unexpected(pb.error());
    else
        o.post_build = std::move(*pb);
    // conda-build reads these when it packages, so a render never fails on
    // them: what the build cannot honour makes the output unbuildable.
    if (auto ok = packaging_keys(build, om.is_output, o.name, where, o.post_build); !ok)
        o.unbuildable = ok.error().str();
    else if (auto ok2 = refuse_unbuilt_keys(raw_, build, o.name); !ok2)
        o.unbuildable = ok2.error().str();
    const Meta& test = sub(m, "test");
    auto tl = [&](const char* k) { return test.contains(k) ? string_list(test[k]) : std::vector<std::string>{}; };
    auto test_requires = dependency_list(test, "requires", where + "test/");
    if (!test_requires) return unexpected(test_requires.error());
    o.test = {tl("commands"), tl("imports"), std::move(*test_requires), tl("files"), tl("source_files")};
    for (auto& [k, val] : sub(m, "about").items()) o.about[k] = val;
    const Meta& od = om.output_dict;
    if (om.is_output) {
        if (od.contains("script")) o.script = str_of(od["script"]);
        if (od.contains("files")) o.files = string_list(od["files"]);
    } else if (raw_.script_text("build.sh")) {
        o.script = "build.sh";
    }
    if (build.contains("script") && !build["script"].is_null()) o.script_lines = string_list(build["script"]);
    o.script_env = script_env_of(build);
    return o;
}

// Dependencies first (build, host and run edges between outputs), recipe
// order otherwise; grouped by staging variant.
void Renderer::order_outputs(std::vector<RenderedOutput>& outs) {
    std::vector<size_t> order;
    std::vector<bool> placed(outs.size(), false);
    std::vector<std::set<std::string>> deps(outs.size());
    for (size_t i = 0; i < outs.size(); ++i)
        for (const auto* l : {&outs[i].requirements.build, &outs[i].requirements.host, &outs[i].requirements.run})
            for (const auto& d : *l) {
                // conda-build's _toposort_outputs: the text up to the first space.
                std::string text = d.is_pin() ? d.pin()->name : d.str();
                deps[i].insert(text.substr(0, text.find(' ')));
            }
    bool progress = true;
    while (order.size() < outs.size() && progress) {
        progress = false;
        for (size_t i = 0; i < outs.size(); ++i) {
            if (placed[i]) continue;
            bool ready = true;
            for (size_t j = 0; j < outs.size() && ready; ++j)
                if (!placed[j] && j != i && outs[j].top_variant == outs[i].top_variant && deps[i].count(outs[j].name) &&
                    outs[j].name != outs[i].name)
                    ready = false;
            if (ready) {
                placed[i] = true;
                order.push_back(i);
                progress = true;
            }
        }
    }
    for (size_t i = 0; i < outs.size(); ++i)
        if (!placed[i]) order.push_back(i);  // a cycle: keep recipe order
    std::vector<RenderedOutput> ordered;
    ordered.reserve(outs.size());
    for (size_t i : order) ordered.push_back(std::move(outs[i]));
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const RenderedOutput& a, const RenderedOutput& b) { return a.top_variant < b.top_variant; });
    outs = std::move(ordered);
}

Result<RenderedRecipe> Renderer::run() {
    auto spec = variant::load(sel_, raw_.config_file, &diag_);
    if (!spec) return unexpected(spec.error());
    spec_ = std::move(*spec);
    auto variants = variant::explode(spec_);
    if (variants.empty()) variants.emplace_back();
    std::vector<std::string> keys;
    for (const auto& [k, v] : variants.front().values) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    auto rules = opts_.smithy ? variant::ScanRules::conda_build_26_7 : variant::ScanRules::conda_build_24_11;
    auto& scanner = cache_.scanners[str::join(keys, ",") + (opts_.smithy ? "|26.7" : "")];
    if (!scanner) scanner = std::make_unique<variant::UsedVarScanner>(keys, rules);
    scanner_ = scanner.get();

    RenderedRecipe rr;
    rr.recipe_dir = raw_.dir.string();
    rr.platform = sel_.platform;

    auto top_om = [&](const VariantText& vt) {
        OutputMeta om;
        om.name = str_of(sub(vt.meta, "package").value("name", Meta("")));
        om.is_output = false;
        om.meta = output_sections(vt.meta);
        return om;
    };
    auto as_vec = [](const std::set<std::string>& s) { return std::vector<std::string>(s.begin(), s.end()); };

    // distribute_variants: one staging (top-level) loop over the keys the
    // top level uses.
    auto p0 = pass_for(variants.front());
    if (!p0) return unexpected(p0.error());
    // noarch recipes build with one Python only: the newest, or the one
    // build/noarch_python_build_age steps back (conda-build's rule), decided
    // by MetaData's first parse, with the first variant of its own read of
    // the configs. conda-smithy passes the merged spec in and moves the
    // recipe's conda_build_config.yaml away, so there that read holds
    // conda-build's defaults only: a noarch behind a key of the spec
    // (pyyaml's `noarch: python  # [use_noarch]`) reduces nothing.
    auto first = p0;
    if (opts_.smithy) {
        variant::Selection bare = sel_;
        bare.spec = nullptr;
        bare.exclusive_files.clear();
        bare.variant_files.clear();
        bare.overrides.clear();
        auto defaults = variant::load(bare, std::nullopt);
        if (!defaults) return unexpected(defaults.error());
        auto dv = variant::explode(*defaults);
        // Its unknown selector names are conda-build's first parse's, not
        // the render's: no warning (nor --strict error) comes of them.
        Diagnostics kept = std::exchange(diag_, Diagnostics{});
        first = pass_for(dv.empty() ? variant::Variant{} : dv.front());
        diag_ = std::move(kept);
        if (!first) return unexpected(first.error());
    }
    const Meta& top_build = sub((*first)->vt.meta, "build");
    if (meta_truthy(top_build.value("noarch", Meta(nullptr))) ||
        meta_truthy(top_build.value("noarch_python", Meta(nullptr)))) {
        std::vector<std::string> pythons;
        for (const auto& v : variants) {
            const std::string* py = v.get("python");
            if (py && std::find(pythons.begin(), pythons.end(), *py) == pythons.end()) pythons.push_back(*py);
        }
        if (!pythons.empty()) {
            auto order = [](const std::string& s) { return types::Version::parse(s.substr(0, s.find(' '))); };
            std::stable_sort(pythons.begin(), pythons.end(), [&](const std::string& a, const std::string& b) {
                auto va = order(a), vb = order(b);
                return va && vb ? *va < *vb : a < b;
            });
            // int() of the value, as conda-build reads it: anything else is an error.
            std::string given = str_of(top_build.value("noarch_python_build_age", Meta("0")));
            auto parsed = str::parse_int(str::trim(given));
            if (!parsed)
                return fail(SourceLoc{raw_.meta_file},
                            "build/noarch_python_build_age must be an integer, not '" + given + "'",
                            "write e.g. 'noarch_python_build_age: 1'");
            long age = std::clamp(static_cast<long>(*parsed), 0L, static_cast<long>(pythons.size()) - 1);
            variants = variant::filter_by(std::move(variants), "python", {pythons[pythons.size() - 1 - static_cast<size_t>(age)]});
            p0 = pass_for(variants.front());
            if (!p0) return unexpected(p0.error());
        }
    }
    auto used_top = used_vars((*p0)->vt, top_om((*p0)->vt), variants.front(), spec_.specials, *scanner_);
    auto loop_top = variant::loop_vars(variants, spec_.specials, as_vec(used_top));
    auto top_loop = variant::reduce(variants, spec_.specials, loop_top);
    rr.name = str_of(sub((*p0)->vt.meta, "package").value("name", Meta("")));
    rr.version = variant::nightly_version(str_of(sub((*p0)->vt.meta, "package").value("version", Meta(""))), sel_);
    if (auto ok = check_recipe_identity(rr, SourceLoc{raw_.meta_file}, SourceLoc{raw_.meta_file}); !ok)
        return unexpected(ok.error());
    if (raw_.script_text("build.sh")) rr.build_script = "build.sh";

    std::set<std::string> all_used;
    std::vector<RenderedOutput> outs;
    std::set<std::string> seen;
    for (const auto& tv : top_loop) {
        auto pt = pass_for(tv);
        if (!pt) return unexpected(pt.error());
        if (meta_truthy(sub((*pt)->vt.meta, "build").value("skip", Meta(nullptr)))) continue;
        std::vector<variant::Variant> mv = variants;
        for (const auto& k : loop_top) mv = variant::filter_by(std::move(mv), k, {tv.value_or(k, "")});
        auto used_global = used_vars((*pt)->vt, top_om((*pt)->vt), tv, spec_.specials, *scanner_, {true});
        all_used.insert(used_global.begin(), used_global.end());
        auto loop2 = variant::reduce(mv, spec_.specials, variant::loop_vars(mv, spec_.specials, as_vec(used_global)));
        int top_index = static_cast<int>(rr.tops.size());
        {
            const Meta& treqs = sub((*pt)->vt.meta, "requirements");
            // conda-smithy's lenient render may leave half specs here; it reads none of them.
            auto top_reqs =
                opts_.smithy ? Result<Requirements>(Requirements{}) : requirements_of(treqs, raw_.meta_file + ": ");
            if (!top_reqs) return unexpected(top_reqs.error());
            auto srcs = sources_of((*pt)->vt.meta, (*pt)->vt.raw);
            if (auto ok = check_git_fields((*pt)->vt.meta, srcs, (*pt)->vt.raw); !ok) return unexpected(ok.error());
            rr.tops.push_back({tv, std::move(*top_reqs), std::move(srcs), {}});
        }
        for (const auto& v : loop2) {
            auto p = pass_for(v);
            if (!p) return unexpected(p.error());
            auto oms = derive_outputs((*p)->vt, v, !opts_.smithy);
            if (!oms) return unexpected(oms.error());
            for (const auto& om : *oms) {
                if (meta_truthy(sub(om.meta, "build").value("skip", Meta(nullptr)))) continue;
                auto used = used_vars((*p)->vt, om, v, spec_.specials, *scanner_);
                all_used.insert(used.begin(), used.end());
                auto made = to_output((*p)->vt, om, v, used);
                if (!made) return unexpected(made.error());
                RenderedOutput o = std::move(*made);
                o.top_variant = top_index;
                if (opts_.smithy) {
                    UsedVarsOptions top;
                    top.force_top_level = true;
                    for (const auto& k : used_vars((*p)->vt, om, v, spec_.specials, *scanner_, top))
                        o.top_level_used.push_back(k);
                }
                std::string key = o.dist() + "|" + v.value_or("target_platform", sel_.platform.name());
                for (const auto& [k, val] : o.used) key += "|" + k + "=" + val;
                if (seen.insert(key).second) outs.push_back(std::move(o));
            }
        }
    }
    for (const auto& o : outs)
        if (auto ok = check_identifiers(o, IdentifierMarks::file(raw_.meta_file), !opts_.smithy); !ok) return unexpected(ok.error());
    order_outputs(outs);
    resolve_pins(outs, spec_.specials.pin_run_as_build, cache_.specs);
    std::vector<RenderedOutput*> all;
    for (auto& o : outs) all.push_back(&o);
    nightly_specs(all, sel_, cache_.specs);
    rr.outputs = std::move(outs);
    rr.staging_keys = loop_top;
    rr.used_keys = as_vec(all_used);
    rr.variants = variants;
    rr.warnings = diag_.warnings();
    return rr;
}

}  // namespace

Result<RenderedRecipe> render(const recipe::RawRecipe& raw, const variant::Selection& sel, RenderCache* cache,
                              RenderOptions opts) {
    RenderCache local;
    Renderer r(raw, sel, cache ? *cache : local, opts);
    return r.run();
}

std::map<std::string, SourceLoc> key_uses(const recipe::RawRecipe& raw, const RenderedRecipe& rr) {
    std::map<std::string, SourceLoc> uses;
    std::vector<std::string> keys;
    if (!rr.variants.empty())
        for (const auto& [k, v] : rr.variants.front().values) keys.push_back(k);
    variant::UsedVarScanner scanner(keys);
    for (const auto& k : rr.used_keys) {
        if (k == "target_platform" || k == "channel_targets") continue;
        int line = scanner.first_use_in_text(k, raw.text, variant::Scan::selectors_only);
        if (!line) line = scanner.first_use_in_text(k, raw.text, variant::Scan::full);
        if (line) {
            uses[k] = SourceLoc{raw.meta_file, line};
            continue;
        }
        std::set<std::string> scripts = {"build.sh", "bld.bat"};
        for (const auto& o : rr.outputs)
            if (!o.script.empty()) scripts.insert(o.script);
        for (const auto& s : scripts)
            if (auto t = raw.script_text(s))
                if (int l = scanner.first_use_in_script(k, *t)) {
                    uses[k] = SourceLoc{raw.display_path(s), l};
                    break;
                }
    }
    return uses;
}

Result<RenderedRecipe> render_dir(const std::filesystem::path& dir, const variant::Selection& sel) {
    if (recipe::is_v1_recipe_dir(dir)) {
        auto r = recipe::load_v1_recipe(dir);
        if (!r) return unexpected(r.error());
        return render_v1(*r, sel);
    }
    auto raw = recipe::RawRecipe::load(dir);
    if (!raw) return unexpected(raw.error());
    return render(*raw, sel);
}

}  // namespace sf::render
