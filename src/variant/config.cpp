#include "variant/config.hpp"
#include "variant/key_list.hpp"
#include "variant/limits.hpp"
#include "variant/typing_index.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "jinja/jinja.hpp"
#include "recipe/raw_recipe.hpp"
#include "recipe/selectors.hpp"
#include "recipe/yaml_tree.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::variant {
namespace {

using detail::append_unique;
using detail::find_key;
using detail::KeyIndex;
using detail::put;

const std::set<std::string> kDefaultExtendKeys = {"pin_run_as_build", "ignore_version",
                                                  "ignore_build_only_deps", "extend_keys"};

constexpr char kGroupSep = kSpecialSep;

}  // namespace

const std::vector<std::string>* Specials::zip_group_of(const std::string& key) const {
    for (const auto& g : zip_keys)
        if (std::find(g.begin(), g.end(), key) != g.end()) return &g;
    return nullptr;
}

bool Specials::is_special(const std::string& key) const {
    return key == "zip_keys" || key == "pin_run_as_build" || key == "ignore_version" ||
           key == "extend_keys" || key == "ignore_build_only_deps" || key == "replacements" ||
           std::find(extend_keys.begin(), extend_keys.end(), key) != extend_keys.end();
}

const std::string* Variant::get(const std::string& key) const { return find_key(values, key); }
std::string Variant::value_or(const std::string& key, const std::string& def) const {
    const std::string* v = get(key);
    return v ? *v : def;
}
void Variant::set(const std::string& key, std::string value) { put(values, key, std::move(value)); }
std::map<std::string, std::string> Variant::as_map() const {
    return {values.begin(), values.end()};
}

const std::vector<std::string>* CombinedSpec::get(const std::string& key) const {
    return find_key(lists, key);
}

SpecSource default_spec(const types::Platform& platform) {
    const std::string& subdir = platform.name();
    SpecSource s;
    s.name = "<defaults>";
    auto add = [&](const std::string& k, std::vector<std::string> v) { s.lists.emplace_back(k, std::move(v)); };
    // conda-build's DEFAULT_VARIANTS, as run under Python 3.12.
    add("python", {"3.12"});
    add("numpy", {"1.26"});
    add("perl", {"5.26.2"});
    add("lua", {"5"});
    add("r_base", {str::starts_with(subdir, "win-") ? "3.4" : "3.5"});
    add("cpu_optimization_target", {"nocona"});
    add("pin_run_as_build", {std::string("python") + kGroupSep + "x.x" + kGroupSep + "x.x",
                             std::string("r-base") + kGroupSep + "x.x" + kGroupSep + "x.x"});
    add("ignore_version", {});
    add("ignore_build_only_deps", {"python", "numpy"});
    add("extend_keys", {"pin_run_as_build", "ignore_version", "ignore_build_only_deps", "extend_keys"});
    add("cran_mirror", {"https://cran.r-project.org"});
    add("target_platform", {subdir});
    if (str::starts_with(subdir, "win-")) {
        add("c_compiler", {"vs2017"});
        add("cxx_compiler", {"vs2017"});
        add("fortran_compiler", {"gfortran"});
        add("vc", {"14"});
    } else if (str::starts_with(subdir, "osx-")) {
        add("c_compiler", {"clang"});
        add("cxx_compiler", {"clangxx"});
        add("fortran_compiler", {"gfortran"});
    } else {
        add("c_compiler", {"gcc"});
        add("cxx_compiler", {"gxx"});
        add("fortran_compiler", {"gfortran"});
    }
    return s;
}

namespace {
constexpr const char* kConfigNotFound = "variant config file not found";
}  // namespace

Error name_flag(Error e, const std::string& flag) {
    if (e.message == kConfigNotFound && !flag.empty()) e.hint = "check the " + flag + " path";
    return e;
}

std::string flag_of(size_t i, size_t exclusive, size_t between) {
    return i < exclusive ? "-e" : i < exclusive + between ? "" : "-m";
}

Result<SpecSource> read_config_file(const std::filesystem::path& p, const Selection& sel, Diagnostics* diag,
                                    const KeyFilter& keep, ConfigSyntax syntax) {
    std::string file = p.lexically_normal().string();
    std::error_code ec;
    if (!std::filesystem::exists(p, ec))
        return fail(SourceLoc{file}, kConfigNotFound, "check the path");
    // read_input_file refuses what is not a regular file (a FIFO, a device)
    // with its own words.
    auto text = fs::read_input_file(p);
    if (!text) return unexpected(text.error());
    return read_config_text(*text, file, sel, diag, {}, keep, syntax);
}

namespace {

// variants.yaml's `- if: cond` / `then:` / `else:` list items, resolved in
// place against the selector names (rattler-build's variant conditionals).
Result<void> resolve_conditionals(recipe::YamlNode& n, const jinja::Context& ns, const std::string& file) {
    for (auto& [k, v] : n.pairs)
        if (auto ok = resolve_conditionals(v, ns, file); !ok) return ok;
    if (!n.is_sequence()) return {};
    std::vector<recipe::YamlNode> out;
    for (auto& item : n.items) {
        const recipe::YamlNode* cond = item.is_mapping() ? item.find("if") : nullptr;
        if (!cond) {
            out.push_back(std::move(item));
            continue;
        }
        auto yes = jinja::evaluate(cond->scalar, jinja::Origin{file, cond->line + 1, cond->col + 1}, ns);
        if (!yes) return unexpected(yes.error());
        const recipe::YamlNode* branch = item.find(yes->truthy() ? "then" : "else");
        if (!branch) continue;
        if (branch->is_sequence())
            for (const auto& b : branch->items) out.push_back(b);
        else
            out.push_back(*branch);
    }
    n.items = std::move(out);
    return {};
}

// Drops the top-level blocks of keys `keep` refuses, before YAML parsing:
// a pinning file has hundreds of keys and a recipe uses a few. Keys named
// in zip_keys always stay (a group is kept whole or not at all by the
// caller). Files with YAML anchors are left whole (an alias could point
// into a dropped block).
void drop_blocks(recipe::Selected& sel, const KeyFilter& keep) {
    auto lines = str::split(sel.text, '\n');
    for (const auto& l : lines)
        for (size_t a = l.find('&'); a != std::string::npos; a = l.find('&', a + 1))
            if (a + 1 < l.size() && (std::isalnum(static_cast<unsigned char>(l[a + 1])) || l[a + 1] == '_')) return;
    auto key_at = [](const std::string& l) -> std::optional<std::string> {
        if (l.empty() || std::isspace(static_cast<unsigned char>(l[0])) || l[0] == '#' || l[0] == '-') return std::nullopt;
        auto c = l.find(':');
        if (c == std::string::npos) return std::nullopt;
        std::string k = std::string(str::trim(l.substr(0, c)));
        if (k.size() >= 2 && (k.front() == '"' || k.front() == '\'') && k.back() == k.front()) k = k.substr(1, k.size() - 2);
        return k;
    };
    std::set<std::string> zipped;
    bool in_zip = false;
    for (const auto& l : lines) {
        if (auto k = key_at(l)) in_zip = *k == "zip_keys";
        if (!in_zip) continue;
        std::string w;
        for (char ch : l + " ") {
            if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.') {
                w += ch;
            } else if (!w.empty()) {
                zipped.insert(w);
                w.clear();
            }
        }
    }
    std::string text;
    std::vector<int> src;
    bool keeping = true;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (auto k = key_at(lines[i])) keeping = zipped.count(*k) || keep(*k);
        if (!keeping) continue;
        text += lines[i];
        if (i + 1 < lines.size()) text += '\n';
        src.push_back(i < sel.source_line.size() ? sel.source_line[i] : 0);
    }
    sel.text = std::move(text);
    sel.source_line = std::move(src);
}


// Whether Rust's i64 or f64 FromStr accepts `s`: [+-] then digits with an
// optional '.' and exponent, or inf, infinity, nan in any case.
bool rust_number(std::string_view s) {
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
    std::string low;
    for (char c : s) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (low == "inf" || low == "infinity" || low == "nan") return true;
    size_t i = 0, digits = 0;
    auto run = [&] {
        size_t n = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++n;
        return n;
    };
    digits += run();
    if (i < s.size() && s[i] == '.') {
        ++i;
        digits += run();
    }
    if (digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (run() == 0) return false;
    }
    return i == s.size();
}


// rattler-build's legacy loader (ParsedLine) reads a selector only after a
// '#' (`k: [1, 2]` is a flow list, where conda-build's sel_pat sees the
// selector [1, 2]) and drops any other comment. Rewritten line by line into
// text conda-build's selector lines read the same way.
std::string rattler_selector_lines(const std::string& text) {
    std::string out;
    for (const auto& line : str::split_lines(text)) {
        size_t hash = line.find('#');
        std::string_view content = std::string_view(line).substr(0, hash);
        content = content.substr(0, content.find_last_not_of(" \t") + 1);
        std::string_view rest = hash == std::string::npos ? std::string_view() : str::trim(std::string_view(line).substr(hash + 1));
        out += content;
        if (str::starts_with(rest, "[") && str::ends_with(rest, "]")) out += "  # " + std::string(rest);
        else if (str::ends_with(content, "]")) out += "  #";  // a flow list, not a selector
        out += '\n';
    }
    return out;
}

// rattler-build's legacy loader quotes a line `- <x>` (after its selector
// is cut) when Rust reads x as an f64 or i64, so 3, 3.10, 1e3 and +3 there are
// strings; what it does not quote (0x10, .inf, `~`, a flow list's items)
// serde_yaml types.
bool quoted_number_line(const std::vector<std::string>& lines, const recipe::YamlNode& item) {
    if (item.line < 0 || static_cast<size_t>(item.line) >= lines.size()) return false;
    std::string_view l = lines[static_cast<size_t>(item.line)];
    l = str::trim(l.substr(0, l.find('#')));  // its ParsedLine: the text before the first '#'

    if (!str::starts_with(l, "- ")) return false;
    std::string_view x = str::trim(l.substr(2));
    return x == item.scalar && rust_number(x);
}
}  // namespace

Result<SpecSource> read_config_text(const std::string& text_in, const std::string& file, const Selection& sel,
                                    Diagnostics* diag, const std::set<std::string>& skip_keys, const KeyFilter& keep,
                                    ConfigSyntax syntax) {
    const std::string* text = &text_in;
    if (auto r = recipe::check_text(*text, file); !r) return unexpected(r.error());
    auto ns = recipe::selector_namespace(sel.platform.name(), sel.build_platform.name(), {}, sel.extra_environ);
    if (!ns) return unexpected(ns.error());
    Result<recipe::Selected> selected = recipe::Selected{};
    const bool v1 = syntax == ConfigSyntax::v1_legacy || syntax == ConfigSyntax::v1_plain;
    std::string v1_text;
    if (syntax == ConfigSyntax::v1_legacy) text = &(v1_text = rattler_selector_lines(*text));
    if (syntax == ConfigSyntax::selectors || syntax == ConfigSyntax::v1_legacy) {
        selected = recipe::apply_selectors(recipe::split_selectors(*text), *ns, file, nullptr, nullptr, diag);
        if (!selected) return unexpected(selected.error());
    } else {
        selected->text = *text;
        for (int i = 0, n = static_cast<int>(str::split_lines(*text).size()); i <= n; ++i) selected->source_line.push_back(i + 1);
    }
    if (keep) drop_blocks(*selected, keep);
    auto node = recipe::parse_yaml_tree(selected->text, file, selected->source_line, diag,
                                        v1 ? recipe::NullText::keep : recipe::NullText::drop);
    if (!node) return unexpected(node.error());
    if (syntax == ConfigSyntax::conditionals || syntax == ConfigSyntax::v1_plain)
        if (auto ok = resolve_conditionals(*node, *ns, file); !ok) return unexpected(ok.error());
    SpecSource src;
    src.name = file;
    std::vector<std::string> legacy_lines;  // v1_legacy: the selected text's lines, once
    if (node->is_null()) return src;
    if (!node->is_mapping())
        return fail(SourceLoc{file, 1}, "a variant config must be a mapping of key: [values]");
    auto line_of = [&](const recipe::YamlNode& n) {
        int l = n.line;
        return l >= 0 && static_cast<size_t>(l) < selected->source_line.size() ? selected->source_line[l] : 0;
    };
    KeyIndex<std::vector<std::string>> keys;
    for (const auto& [k, v] : node->pairs) {
        std::string key = k.scalar;
        if (skip_keys.count(key)) continue;
        int line = line_of(k);
        src.line_of[key] = line;
        if (key.find('-') != std::string::npos)
            return fail(SourceLoc{file, line}, "variant key '" + key + "' contains an invalid character '-'",
                        "use '_' in variant keys");
        std::vector<std::string> values;
        if (v.is_null()) continue;  // empty keys are dropped, as conda-build does
        if (key == "zip_keys") {
            if (!v.is_sequence()) return fail(SourceLoc{file, line}, "zip_keys must be a list of lists of keys");
            bool flat = !v.items.empty() && v.items[0].is_scalar();
            auto add_group = [&](const recipe::YamlNode& g) -> Result<void> {
                std::vector<std::string> keys;
                for (const auto& z : g.items) {
                    if (!z.is_scalar()) return fail(SourceLoc{file, line_of(z)}, "zip_keys entries must be key names");
                    keys.push_back(z.scalar);
                }
                if (!keys.empty()) values.push_back(str::join(keys, std::string(1, kGroupSep)));
                return {};
            };
            if (flat) {
                if (auto r = add_group(v); !r) return unexpected(r.error());
            } else {
                for (const auto& g : v.items) {
                    if (g.is_null()) continue;
                    if (!g.is_sequence()) return fail(SourceLoc{file, line_of(g)}, "zip_keys must be a list of lists of keys");
                    if (auto r = add_group(g); !r) return unexpected(r.error());
                }
            }
        } else if (key == "pin_run_as_build" && !v.is_mapping()) {
            return fail(SourceLoc{file, line}, "pin_run_as_build must be a mapping of package names to {min_pin, max_pin}",
                        "write e.g. 'pin_run_as_build:' then 'python: {min_pin: x.x, max_pin: x.x}'");
        } else if (v.is_mapping()) {
            if (key != "pin_run_as_build")
                return fail(SourceLoc{file, line}, "mapping values are only supported for pin_run_as_build",
                            "give '" + key + "' a list of values");
            for (const auto& [name, pin] : v.pairs) {
                if (!pin.is_mapping() || !name.is_scalar())
                    return fail(SourceLoc{file, line_of(pin)}, "pin_run_as_build: each entry must map a package name to {min_pin, max_pin}",
                                "write e.g. 'python: {min_pin: x.x, max_pin: x.x}'");
                const recipe::YamlNode* mn = pin.find("min_pin");
                const recipe::YamlNode* mx = pin.find("max_pin");
                values.push_back(name.scalar + kGroupSep + (mn ? mn->scalar : "") + kGroupSep + (mx ? mx->scalar : ""));
            }
        } else if (v.is_sequence()) {
            for (const auto& item : v.items) {
                if (item.is_null() && !v1) {  // `- ` with nothing after it: BaseLoader's ''
                    values.emplace_back();
                    continue;
                }
                if (!item.is_scalar() && !item.is_null())
                    return fail(SourceLoc{file, line_of(item)}, "values of '" + key + "' must be scalars");
                if (item.plain && syntax == ConfigSyntax::v1_legacy) {
                    if (legacy_lines.empty()) legacy_lines = str::split_lines(selected->text);
                    if (!quoted_number_line(legacy_lines, item)) src.yaml_core.emplace(key, item.scalar);
                } else if (item.plain) {
                    src.plain.emplace(key, item.scalar);
                }
                values.push_back(item.scalar);
            }
        } else {
            values.push_back(v.scalar);
        }
        keys.put(src.lists, key, std::move(values));  // a repeated key: the last one wins
    }
    // Within one file, zipped lists must have equal lengths.
    for (const auto& [k, v] : src.lists) {
        if (k != "zip_keys") continue;
        for (const auto& enc : v) {
            auto group = str::split(enc, kGroupSep);
            std::string first;
            size_t first_len = 0;
            for (const auto& g : group) {
                const auto* vals = keys.find(src.lists, g);
                if (!vals) continue;
                if (first.empty()) {
                    first = g;
                    first_len = vals->size();
                } else if (vals->size() != first_len) {
                    return fail(SourceLoc{file, src.line_of[g]},
                                "zip_keys group [" + str::join(group, ", ") + "] has lists of different lengths: " +
                                    first + " has " + std::to_string(first_len) + ", " + g + " has " +
                                    std::to_string(vals->size()),
                                "zipped keys vary together, so their lists must be equally long");
                }
            }
        }
    }
    return src;
}

Result<CombinedSpec> combine(std::vector<SpecSource> sources) {
    CombinedSpec out;
    std::set<std::string> extend(kDefaultExtendKeys);
    for (const auto& s : sources)
        if (const auto* ek = find_key(s.lists, "extend_keys"))
            extend.insert(ek->begin(), ek->end());

    // First pass: zip_keys from every source.
    std::vector<std::vector<std::string>> groups;
    for (const auto& s : sources)
        if (const auto* zk = find_key(s.lists, "zip_keys"))
            for (const auto& enc : *zk) {
                auto g = str::split(enc, kGroupSep);
                auto sorted_g = g;
                std::sort(sorted_g.begin(), sorted_g.end());
                bool dup = false;
                for (const auto& e : groups) {
                    auto se = e;
                    std::sort(se.begin(), se.end());
                    dup |= se == sorted_g;
                }
                if (!dup) groups.push_back(g);
            }
    out.specials.zip_keys = groups;
    auto group_of = [&](const std::string& k) -> std::vector<std::string> {
        for (const auto& g : groups)
            if (std::find(g.begin(), g.end(), k) != g.end()) return g;
        return {k};
    };

    KeyIndex<std::vector<std::string>> merged;  // out.lists
    for (const auto& s : sources) {
        const KeyIndex<std::vector<std::string>> own(s.lists);
        for (const auto& [k, v] : s.lists) {
            SourceLoc where{s.name, s.line_of.count(k) ? s.line_of.at(k) : 0};
            if (k == "zip_keys") continue;
            if (extend.count(k)) {
                auto* cur = merged.find(out.lists, k);
                if (!cur) {
                    merged.put(out.lists, k, {});
                    cur = &out.lists.back().second;
                }
                if (k == "pin_run_as_build") {
                    // dict update: later entries for the same package win
                    for (const auto& e : v) {
                        auto name = str::split(e, kGroupSep).at(0);
                        cur->erase(std::remove_if(cur->begin(), cur->end(),
                                                  [&](const std::string& x) { return str::split(x, kGroupSep).at(0) == name; }),
                                   cur->end());
                        cur->push_back(e);
                    }
                } else {
                    append_unique(*cur, v);
                }
                out.origin[k] = where;
                continue;
            }
            auto group = group_of(k);
            bool all_in_spec = std::all_of(group.begin(), group.end(),
                                           [&](const std::string& g) { return own.find(s.lists, g) != nullptr; });
            if (all_in_spec) {
                for (const auto& g : group) {
                    const auto* gv = own.find(s.lists, g);
                    if (gv->size() != v.size())
                        return fail(SourceLoc{s.name, s.line_of.count(g) ? s.line_of.at(g) : 0},
                                    "zip_keys: '" + k + "' has " + std::to_string(v.size()) + " values but '" + g +
                                        "' has " + std::to_string(gv->size()),
                                    "zipped keys vary together, so their lists must be equally long");
                    merged.put(out.lists, g, *gv);
                    out.origin[g] = SourceLoc{s.name, s.line_of.count(g) ? s.line_of.at(g) : 0};
                }
            } else if (auto* cur = merged.find(out.lists, k)) {
                bool consistent = true;
                for (const auto& g : group) {
                    if (const auto* gv = own.find(s.lists, g); gv && gv->size() != v.size()) consistent = false;
                    if (const auto* gv = merged.find(out.lists, g); gv && g != k && gv->size() != v.size()) consistent = false;
                }
                if (consistent) {
                    *cur = v;
                    out.origin[k] = where;
                } else {
                    for (const auto& x : v)
                        if (std::find(cur->begin(), cur->end(), x) == cur->end())
                            return fail(where,
                                        "'" + k + "' is zipped with [" + str::join(group, ", ") +
                                            "] but this file sets only some of them, to values not in the zip",
                                        "set every key of the zip group here, with lists of equal length");
                }
            }
        }
    }
    // Specials out of the merged lists.
    for (const auto& [k, v] : out.lists) {
        if (k == "pin_run_as_build") {
            for (const auto& e : v) {
                auto parts = str::split(e, kGroupSep);
                out.specials.pin_run_as_build[parts.at(0)] = {parts.at(1), parts.at(2)};
            }
        } else if (k == "extend_keys") {
            out.specials.extend_keys = v;
        } else if (k == "ignore_version") {
            out.specials.ignore_version = v;
        } else if (k == "ignore_build_only_deps") {
            out.specials.ignore_build_only_deps = v;
        }
    }
    for (const auto& e : extend) append_unique(out.specials.extend_keys, {e});
    // zip groups whose keys are all unset are dropped; partially set ones are an error.
    for (const auto& g : groups) {
        for (const auto& k : g)
            if (!merged.find(out.lists, k))
                return fail(SourceLoc{sources.back().name}, "zip_keys entry '" + k + "' in group [" +
                                                                str::join(g, ", ") + "] does not have any settings",
                            "give it a list of values or remove it from zip_keys");
    }
    out.sources = std::move(sources);
    return out;
}

SpecSource as_source(const CombinedSpec& spec, std::string name) {
    SpecSource s;
    s.name = std::move(name);
    for (const auto& [k, v] : spec.lists) {
        s.lists.emplace_back(k, v);
        if (auto it = spec.origin.find(k); it != spec.origin.end()) s.line_of[k] = it->second.line;
    }
    if (!spec.specials.zip_keys.empty()) {
        std::vector<std::string> groups;
        for (const auto& g : spec.specials.zip_keys) groups.push_back(str::join(g, std::string(1, kGroupSep)));
        s.lists.emplace_back("zip_keys", std::move(groups));
    }
    return s;
}

namespace {

// Whether the merged spec's whole matrix must fit kMaxVariants: conda-build
// explodes it all; rattler-build only the keys a recipe reads (render_v1
// checks that matrix).
enum class SizeCheck { whole_matrix, by_caller };

// The command line's --variant values go last (they win), then the merge
// and the size check.
Result<CombinedSpec> with_overrides(std::vector<SpecSource> sources, const Selection& sel, SizeCheck check) {
    if (!sel.overrides.empty()) {
        SpecSource cli;
        cli.name = "<command line>";
        for (const auto& [k, v] : sel.overrides) put(cli.lists, k, str::split(v, ','));
        sources.push_back(std::move(cli));
    }
    auto combined = combine(std::move(sources));
    if (combined && check == SizeCheck::whole_matrix)
        if (auto ok = check_matrix_size(*combined); !ok) return unexpected(ok.error());
    return combined;
}

}  // namespace

Result<CombinedSpec> load(const Selection& sel, const std::optional<std::filesystem::path>& recipe_config,
                          Diagnostics* diag) {
    std::vector<SpecSource> sources;
    sources.push_back(default_spec(sel.platform));
    std::vector<std::filesystem::path> files = sel.exclusive_files;
    const std::size_t system = sel.exclusive_files.empty() ? sel.system_files.size() : 0;
    if (system) files = sel.system_files;
    if (recipe_config) files.push_back(*recipe_config);
    files.insert(files.end(), sel.variant_files.begin(), sel.variant_files.end());
    if (sel.spec) {
        files.clear();
        sources.push_back(*sel.spec);
    }
    for (size_t i = 0; i < files.size(); ++i) {
        auto s = read_config_file(files[i], sel, diag);
        if (!s)
            return unexpected(name_flag(s.error(), flag_of(i, sel.exclusive_files.size(), system + (recipe_config ? 1 : 0))));
        sources.push_back(std::move(*s));
    }
    return with_overrides(std::move(sources), sel, SizeCheck::whole_matrix);
}


Result<CombinedSpec> load_v1(const Selection& sel, const std::optional<std::filesystem::path>& recipe_config,
                             Diagnostics* diag) {
    std::vector<SpecSource> sources;
    SpecSource platforms;
    platforms.name = "<platform>";
    platforms.lists.emplace_back("target_platform", std::vector<std::string>{sel.platform.name()});
    platforms.lists.emplace_back("build_platform", std::vector<std::string>{sel.build_platform.name()});
    sources.push_back(std::move(platforms));
    // rattler-build has no -e. For a recipe.yaml feedstock conda-smithy
    // reads conda-forge's pinning (its -e) first and lays variants.yaml over
    // it, and passes the result to rattler-build as -m; with no conda-build
    // defaults to exclude, an -e file is a variant file read first.
    std::vector<std::filesystem::path> files = sel.exclusive_files;
    if (recipe_config) files.push_back(*recipe_config);
    files.insert(files.end(), sel.variant_files.begin(), sel.variant_files.end());
    if (sel.spec) {
        files.clear();
        sources.push_back(*sel.spec);
    }
    for (size_t i = 0; i < files.size(); ++i) {
        // VariantConfig::from_files: only a file named conda_build_config.yaml
        // takes the legacy loader (`# [selector]` lines); any other is plain
        // YAML with `if:` items.
        bool legacy = files[i].filename() == "conda_build_config.yaml";
        auto s = read_config_file(files[i], sel, diag, {}, legacy ? ConfigSyntax::v1_legacy : ConfigSyntax::v1_plain);
        if (!s) return unexpected(name_flag(s.error(), flag_of(i, sel.exclusive_files.size(), recipe_config ? 1 : 0)));
        sources.push_back(std::move(*s));
    }
    return with_overrides(std::move(sources), sel, SizeCheck::by_caller);
}

bool is_plain(const CombinedSpec& spec, const std::string& key, const std::string& value) {
    return typing_of(spec, key, value) == ScalarTyping::marked_yaml;
}

namespace {

ScalarTyping typing_in(const SpecSource& s, const std::string& key, const std::string& value) {
    if (s.plain.count({key, value})) return ScalarTyping::marked_yaml;
    if (s.yaml_core.count({key, value})) return ScalarTyping::serde_yaml;
    return ScalarTyping::text;
}

}  // namespace

ScalarTyping typing_of(const CombinedSpec& spec, const std::string& key, const std::string& value) {
    for (auto it = spec.sources.rbegin(); it != spec.sources.rend(); ++it)
        if (find_key(it->lists, key)) return typing_in(*it, key, value);
    return ScalarTyping::text;
}

TypingIndex::TypingIndex(const CombinedSpec& spec) {
    for (const auto& s : spec.sources)
        for (const auto& [k, v] : s.lists) last_[k] = &s;
}

ScalarTyping TypingIndex::of(const std::string& key, const std::string& value) const {
    auto it = last_.find(key);
    return it == last_.end() ? ScalarTyping::text : typing_in(*it->second, key, value);
}

}  // namespace sf::variant
