#include "feedstock/lint_v1.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>

#include "feedstock/ci_job.hpp"
#include "recipe/v1_schema.hpp"
#include "recipe/yaml_tree.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::feedstock {
namespace {

namespace stdfs = std::filesystem;
using recipe::YamlNode;

// Names rattler-build's Jinja defines whatever the variant: platforms and
// their families, architectures, the functions, `hash` (build.string) and
// the Jinja literals.
bool is_builtin(const std::string& n) {
    static const std::set<std::string> names = {
        "target_platform", "build_platform", "host_platform", "unix", "linux", "osx", "win", "emscripten", "wasi",
        "ios", "iossimulator", "zos", "freebsd", "SHLIB_EXT", "hash", "env", "git", "match", "cdt", "compiler",
        "stdlib", "pin_subpackage", "pin_compatible", "is_linux", "is_osx", "is_windows", "is_unix", "is_ios",
        "is_android", "load_from_file", "cmp", "x86", "x86_64", "aarch64", "arm64", "armv6l", "armv7l",
        "ppc64le", "ppc64", "s390x", "riscv32", "riscv64", "wasm32", "loongarch64", "linux64", "linux32",
        "linuxaarch64", "linuxarmv6l", "linuxarmv7l", "linuxppc64le", "linuxppc64", "linuxs390x", "linuxriscv64",
        "linuxriscv32", "osx64", "osxarm64", "win64", "win32", "winarm64", "emscriptenwasm32", "wasiwasm32",
        "true", "false", "none", "True", "False", "None", "and", "or", "not", "if", "else", "in", "is"};
    return names.count(n) > 0;
}

struct Name {
    std::string name;
    size_t offset;  // in the expression
};

size_t skip_space(std::string_view s, size_t i) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return i;
}

// `x is defined`, `x is not undefined`: the recipe asks whether x exists.
bool probed(std::string_view e, size_t k) {
    if (e.substr(k, 3) != "is ") return false;
    size_t t = skip_space(e, k + 3);
    if (e.substr(t, 4) == "not ") t = skip_space(e, t + 4);
    return e.substr(t, 7) == "defined" || e.substr(t, 9) == "undefined";
}

// The variables an expression reads: identifiers that are not attributes
// (`.x`), filters (`| x`), tests (`is x`), keyword arguments (`x=`) or
// string contents.
std::vector<Name> free_names(std::string_view e) {
    std::vector<Name> out;
    std::string prev;  // the previous token: an operator character or a word
    for (size_t i = 0; i < e.size();) {
        char c = e[i];
        if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < e.size() && e[j] != c) j += e[j] == '\\' ? 2 : 1;
            i = j + 1;
            prev = "str";
            continue;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t j = i;
            while (j < e.size() && (std::isalnum(static_cast<unsigned char>(e[j])) || e[j] == '_')) ++j;
            std::string word(e.substr(i, j - i));
            size_t k = skip_space(e, j);
            bool kwarg = k < e.size() && e[k] == '=' && (k + 1 >= e.size() || e[k + 1] != '=');
            if (prev != "." && prev != "|" && prev != "is" && !kwarg && !probed(e, k)) out.push_back({word, i});
            // After `is not` comes a test name, as after `is`.
            prev = (prev == "is" && word == "not") ? "is" : word;
            i = j;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        prev = std::string(1, c);
        ++i;
    }
    return out;
}

// The `${{ ... }}` expressions of a scalar, with their offsets.
std::vector<std::pair<std::string, size_t>> expressions(const std::string& s) {
    std::vector<std::pair<std::string, size_t>> out;
    for (size_t at = s.find("${{"); at != std::string::npos; at = s.find("${{", at + 3)) {
        size_t end = s.find("}}", at + 3);
        if (end == std::string::npos) break;
        out.emplace_back(s.substr(at + 3, end - at - 3), at + 3);
    }
    return out;
}

bool is_conditional(const YamlNode& n) { return n.is_mapping() && n.find("if") && n.find("then"); }

struct V1Linter {
    const LintOptions& opts;
    std::string file;  // recipe.yaml's path, as findings name it
    std::vector<Finding> out{};
    std::set<std::string> context{}, variant_keys{};
    bool have_ci_files = false;
    bool missing_variants_dir = false;  // --variants-dir names no directory
    struct Expr {
        std::string text;
        int line;
        int col;
        bool script = false;  // in a script: the build's environment variables are defined too
    };
    std::vector<Expr> exprs{};               // every expression, for the name checks
    std::vector<const YamlNode*> sources{};  // every source entry
    std::set<std::string> outputs{};         // output names, `${{ x }}` resolved from the context
    bool unresolved_output = false;        // a name we could not resolve: pins are not checked
    std::map<std::string, std::string> context_text{};  // literal context values

    void add(const char* id, int line0, int col, Severity s, std::string msg, std::string hint) {
        out.push_back(Finding{SourceLoc{file, line0 + 1, col}, s, std::move(msg), std::move(hint), id});
    }

    // Every scalar below `n` (keys too) that holds `${{ }}`, and every `if:`.
    // A script is rendered at build time with the build's environment
    // (${{ PYTHON }}, ${{ PREFIX }}), so there upper-case names pass.
    void collect_exprs(const YamlNode& n, bool script = false) {
        if (n.is_scalar())
            for (const auto& [e, off] : expressions(n.scalar))
                exprs.push_back({e, n.line, static_cast<int>(off) + 1, script});
        for (const auto& i : n.items) collect_exprs(i, script);
        for (const auto& [k, v] : n.pairs) {
            collect_exprs(k, script);
            if (k.scalar == "if" && v.is_scalar()) exprs.push_back({v.scalar, v.line, 0, script});
            collect_exprs(v, script || k.scalar == "script");
        }
    }

    // The keys rattler-build's parser refuses (errors) and those it reads
    // past without a word (warnings), from recipe/v1_schema's one table.
    void check_keys(const YamlNode& root) {
        for (const auto& p : recipe::v1::check_keys(root)) {
            bool refused = p.refusal == recipe::v1::Refusal::parse_error;
            add(p.no_kind ? "no-kind" : refused ? "unknown-key" : "ignored-key", p.at->line, p.at->col + 1,
                refused ? Severity::error : Severity::warning, p.message, p.hint);
        }
    }

    void collect_sources(const YamlNode& n) {
        if (n.is_sequence()) {
            for (const auto& i : n.items) collect_sources(i);
        } else if (is_conditional(n)) {
            for (const auto& [k, v] : n.pairs)
                if (k.scalar != "if") collect_sources(v);
        } else if (n.is_mapping()) {
            sources.push_back(&n);
        }
    }

    // `${{ name }}` in an output name, resolved from the literal context.
    void add_output_name(const YamlNode* name) {
        if (!name || !name->is_scalar()) return;
        std::string s = name->scalar;
        for (const auto& [e, off] : expressions(name->scalar)) {
            std::string key(str::trim(e));
            auto it = context_text.find(key);
            if (it == context_text.end()) {
                unresolved_output = true;
                return;
            }
            s = str::replace_all(s, "${{" + e + "}}", it->second);
        }
        outputs.insert(s);
    }

    void read_structure(const YamlNode& root) {
        if (const auto* ctx = root.find("context"); ctx && ctx->is_mapping())
            for (const auto& [k, v] : ctx->pairs) {
                context.insert(k.scalar);
                if (v.is_scalar() && v.scalar.find("${{") == std::string::npos) context_text[k.scalar] = v.scalar;
            }
        if (const auto* p = root.find("package")) add_output_name(p->find("name"));
        if (const auto* s = root.find("source")) collect_sources(*s);
        if (const auto* outs = root.find("outputs"); outs && outs->is_sequence())
            for (const auto& o : outs->items) {
                if (const auto* p = o.find("package")) add_output_name(p->find("name"));
                if (const auto* s = o.find("source")) collect_sources(*s);
            }
        collect_exprs(root);
        // skip: entries are expressions without `${{ }}`.
        std::vector<const YamlNode*> builds = {root.find("build")};
        if (const auto* outs = root.find("outputs"); outs && outs->is_sequence())
            for (const auto& o : outs->items) builds.push_back(o.find("build"));
        for (const auto* b : builds) {
            const YamlNode* skip = b ? b->find("skip") : nullptr;
            if (!skip) continue;
            auto one = [&](const YamlNode& x) {
                if (x.is_scalar() && x.scalar.find("${{") == std::string::npos) exprs.push_back({x.scalar, x.line, 0});
            };
            if (skip->is_scalar()) one(*skip);
            for (const auto& x : skip->items) one(x);
        }
    }

    void read_variant_keys(const stdfs::path& f) {
        auto text = fs::read_file(f);
        if (!text) return;
        auto tree = recipe::parse_yaml_tree(*text, f.string());
        if (!tree || !tree->is_mapping()) return;
        for (const auto& [k, v] : tree->pairs) variant_keys.insert(k.scalar);
    }

    void variant_files() {
        for (const char* f : {"variants.yaml", "conda_build_config.yaml"})
            if (std::error_code ec; stdfs::is_regular_file(opts.recipe_dir / f, ec)) read_variant_keys(opts.recipe_dir / f);
        stdfs::path ci = opts.variants_dir ? *opts.variants_dir : opts.recipe_dir / ".." / ".ci_support";
        auto files = job_files(ci);
        if (!files) {
            if (opts.variants_dir) missing_variants_dir = true;
            return;
        }
        for (const auto& f : *files) {
            read_variant_keys(f);
            have_ci_files = true;
        }
    }

    void names() {
        std::set<std::string> seen;
        for (const auto& e : exprs)
            for (const auto& n : free_names(e.text)) {
                if (is_builtin(n.name) || context.count(n.name) || variant_keys.count(n.name)) continue;
                if (e.script && std::none_of(n.name.begin(), n.name.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); }))
                    continue;
                if (!seen.insert(n.name).second) continue;
                Severity s = have_ci_files ? Severity::error : Severity::warning;
                std::string msg = "'" + n.name + "' is not defined: not in context, not a variant key";
                std::vector<std::string> known(context.begin(), context.end());
                known.insert(known.end(), variant_keys.begin(), variant_keys.end());
                std::string near = str::closest(n.name, known);
                std::string hint = near.empty() ? "" : "did you mean '" + near + "'? ";
                hint += have_ci_files ? "define it in context: or in the variant files"
                                      : "no CI variant files to tell: pass --variants-dir, or define it in "
                                        "context: or variants.yaml";
                add("undefined-variable", e.line, e.col ? e.col + static_cast<int>(n.offset) : 0, s, msg, hint);
            }
    }

    // pin_subpackage("x") / pin_subpackage(x) naming no output.
    void pins() {
        if (unresolved_output) return;
        std::vector<std::string> names(outputs.begin(), outputs.end());
        for (const auto& e : exprs) {
            for (size_t at = e.text.find("pin_subpackage"); at != std::string::npos;
                 at = e.text.find("pin_subpackage", at + 1)) {
                size_t i = skip_space(e.text, at + 14);
                if (i >= e.text.size() || e.text[i] != '(') continue;
                i = skip_space(e.text, i + 1);
                std::string target;
                if (i < e.text.size() && (e.text[i] == '"' || e.text[i] == '\'')) {
                    size_t j = e.text.find(e.text[i], i + 1);
                    if (j == std::string::npos) continue;
                    target = e.text.substr(i + 1, j - i - 1);
                } else {
                    size_t j = i;
                    while (j < e.text.size() && (std::isalnum(static_cast<unsigned char>(e.text[j])) || e.text[j] == '_')) ++j;
                    auto it = context_text.find(e.text.substr(i, j - i));
                    if (it == context_text.end()) continue;  // not a literal we can resolve
                    target = it->second;
                }
                if (outputs.count(target)) continue;
                std::string near = str::closest(target, names);
                add("pin-subpackage", e.line, 0, Severity::error,
                    "pin_subpackage('" + target + "') names no output of this recipe",
                    near.empty() ? "outputs: " + str::join(names, ", ") : "did you mean '" + near + "'?");
            }
        }
    }

    static bool is_hex(const std::string& s, size_t n) {
        return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    }

    void patch_list(const YamlNode& n) {
        if (n.is_sequence()) {
            for (const auto& i : n.items) patch_list(i);
        } else if (is_conditional(n)) {
            for (const auto& [k, v] : n.pairs)
                if (k.scalar != "if") patch_list(v);
        } else if (n.is_scalar() && n.scalar.find("${{") == std::string::npos) {
            std::error_code ec;
            if (!stdfs::exists(opts.recipe_dir / n.scalar, ec))
                add("missing-patch", n.line, 0, Severity::error, "patch '" + n.scalar + "' does not exist",
                    "add it next to recipe.yaml, or remove it from patches:");
        }
    }

    void check_sources() {
        for (const auto* s : sources) {
            if (const auto* p = s->find("patches")) patch_list(*p);
            const YamlNode* sha = s->find("sha256");
            const YamlNode* md5 = s->find("md5");
            for (auto [node, len, what] : {std::tuple{sha, size_t{64}, "sha256"}, std::tuple{md5, size_t{32}, "md5"}}) {
                if (!node || !node->is_scalar() || node->scalar.find("${{") != std::string::npos) continue;
                if (!is_hex(node->scalar, len))
                    add("bad-checksum", node->line, 0, Severity::error,
                        std::string(what) + " '" + node->scalar + "' is not " + std::to_string(len) + " hex digits",
                        "copy the checksum again, e.g. from `sha256sum` of the download");
            }
            if (const auto* url = s->find("url"); url && !sha) {
                if (md5)
                    add("md5-only", url->line, 0, Severity::warning, "url source has md5 but no sha256",
                        "add sha256 (conda-forge requires it)");
                else
                    add("no-sha256", url->line, 0, Severity::error, "url source without sha256",
                        "add sha256: so the download is verified");
            }
        }
    }
};

}  // namespace

Result<V1Lint> lint_v1(const LintOptions& opts) {
    stdfs::path path = opts.recipe_dir / "recipe.yaml";
    auto text = fs::read_file(path);
    if (!text) return unexpected(text.error());
    auto root = recipe::parse_yaml_tree(*text, path.string());
    if (!root) return unexpected(root.error());
    if (!root->is_mapping()) return fail(SourceLoc{path.string(), 1}, "recipe.yaml is not a mapping", "");
    V1Linter l{.opts = opts, .file = path.string()};
    l.check_keys(*root);
    l.read_structure(*root);
    l.variant_files();
    if (l.missing_variants_dir)
        return fail(SourceLoc{opts.variants_dir->string()}, "variants directory does not exist",
                    "give the directory of the CI variant files (.ci_support)");
    l.names();
    l.pins();
    l.check_sources();
    V1Lint res{std::move(l.out), {}};
    const YamlNode* extra = root->find("extra");
    const YamlNode* sf = extra ? extra->find("splitforge") : nullptr;
    if (const YamlNode* skip = sf ? sf->find("lint_skip") : nullptr)
        for (const auto& id : skip->items)
            if (id.is_scalar()) res.skip.push_back(id.scalar);
    return res;
}

}  // namespace sf::feedstock
