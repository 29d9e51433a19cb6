// recipe.yaml stage 0: the tree and the schema's structural rules, as
// rattler-build's stage0 parser checks them (unknown keys through
// v1_schema's table, the output kinds, schema_version, context names), each
// error at file:line:col.
#include "recipe/v1_recipe.hpp"

#include <algorithm>
#include <vector>

#include "core/try.hpp"
#include "recipe/raw_recipe.hpp"
#include "recipe/v1_schema.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::recipe {
namespace {

class Checker {
public:
    Checker(const V1Recipe& r) : r_(r) {}

    Result<void> mapping(const YamlNode& n, const std::string& what) const {
        if (n.is_mapping()) return {};
        return fail(r_.at(n), what + " must be a mapping", "write '" + what + ":' followed by indented 'key: value' lines");
    }
    Result<void> name_in(const YamlNode& n, const std::string& what, bool version_required) const {
        SF_TRY_VOID(mapping(n, what));
        const YamlNode* name = n.find("name");
        if (!name || !name->is_scalar() || name->scalar.empty())
            return fail(r_.at(n), "missing field 'name' in " + what, "add 'name: <package name>'");
        if (version_required && !n.find("version"))
            return fail(r_.at(n), "missing field 'version' in " + what, "add 'version: <version>'");
        return {};
    }
    Result<void> conditionals(const YamlNode& n) const {
        if (is_conditional(n)) {
            for (const auto& [k, v] : n.pairs)
                if (k.scalar != "if" && k.scalar != "then" && k.scalar != "else")
                    return fail(r_.at(k), "unknown field '" + k.scalar + "' in an if/then/else block",
                                "an 'if:' block holds only 'if', 'then' and 'else'");
            if (!n.find("then"))
                return fail(r_.at(n), "'if' without 'then'", "add 'then:' with the value used when the condition holds");
            const YamlNode* cond = n.find("if");
            if (!cond->is_scalar() || cond->scalar.empty())
                return fail(r_.at(*cond), "the condition of 'if' must be an expression", "write e.g. 'if: linux'");
        }
        for (const auto& item : n.items) SF_TRY_VOID(conditionals(item));
        // A build step's `if:` is its own field, not a conditional, and
        // rattler-build reads `extra:` and a script's `env:` as written.
        for (const auto& [k, v] : n.pairs)
            if (k.scalar != "steps" && k.scalar != "extra" && k.scalar != "env") SF_TRY_VOID(conditionals(v));
        return {};
    }
    Result<void> output(const YamlNode& o) const {
        if (!o.is_mapping()) return fail(r_.at(o), "an output must be a mapping", "start it with 'package:' or 'staging:'");
        if (o.find("staging")) return name_in(*o.find("staging"), "staging", false);
        // rattler-build's parse_outputs has no `- if:` items in outputs.
        if (!o.find("package"))
            return fail(r_.at(o), "an output must have either a 'staging' or a 'package' key",
                        is_conditional(o) ? "rattler-build takes no 'if:' items in outputs: give the output "
                                            "'build: {skip: ...}' instead"
                                          : "outputs are '- package: {name: ...}' or '- staging: {name: ...}'");
        return name_in(*o.find("package"), "package", false);
    }
    Result<void> schema_version(const YamlNode& root) const {
        const YamlNode* v = root.find("schema_version");
        if (!v) return {};
        if (!v->is_scalar() || v->scalar != "1")
            return fail(r_.at(*v), "unsupported schema_version '" + (v->is_scalar() ? v->scalar : std::string("?")) + "'",
                        "recipe.yaml files have schema_version: 1");
        return {};
    }
    Result<void> context(const YamlNode& root) const {
        const YamlNode* c = root.find("context");
        if (!c || c->is_null()) return {};
        SF_TRY_VOID(mapping(*c, "context"));
        for (const auto& [k, v] : c->pairs) {
            if (k.scalar.find('-') != std::string::npos)
                return fail(r_.at(k), "context variable '" + k.scalar + "' has a '-' in its name",
                            "Jinja reads '-' as minus: use '_' instead");
            if (v.is_mapping())
                return fail(r_.at(v), "context value '" + k.scalar + "' must be a scalar or a list",
                            "context holds variables: 'name: value'");
        }
        return {};
    }
    Result<void> recipe(const YamlNode& root) const {
        if (!root.is_mapping())
            return fail(r_.at(root), "recipe.yaml must be a mapping of sections", "start with 'package:' or 'recipe:'");
        if (root.find("cache"))
            return fail(r_.at(*root.find("cache")), "the top-level 'cache:' key is no longer supported",
                        "use a '- staging:' output instead");
        SF_TRY_VOID(schema_version(root));
        SF_TRY_VOID(context(root));
        // The first key rattler-build's parser refuses (a section's own
        // `if:` among them); the ones it reads past are lint's to report.
        for (const auto& p : v1::check_keys(root))
            if (p.refusal == v1::Refusal::parse_error) return fail(r_.at(*p.at), p.message, p.hint);
        SF_TRY_VOID(conditionals(root));
        if (const YamlNode* outs = root.find("outputs")) {
            if (const auto* rec = root.find("recipe")) SF_TRY_VOID(name_in(*rec, "recipe", false));
            if (!outs->is_sequence() || outs->items.empty())
                return fail(r_.at(*outs), "outputs must be a non-empty list", "write '- package: {name: ...}' items");
            for (const auto& o : outs->items) SF_TRY_VOID(output(o));
            return {};
        }
        const YamlNode* pkg = root.find("package");
        if (!pkg) return fail(r_.at(root), "missing field 'package'", "add 'package:' with 'name:' and 'version:', or 'outputs:'");
        return name_in(*pkg, "package", true);
    }

private:
    const V1Recipe& r_;
};

}  // namespace

bool is_conditional(const YamlNode& n) { return n.is_mapping() && n.find("if") != nullptr; }

bool is_v1_recipe_dir(const std::filesystem::path& dir) {
    std::error_code ec;
    return std::filesystem::is_regular_file(dir / "recipe.yaml", ec) &&
           !std::filesystem::exists(dir / "meta.yaml", ec);
}

Result<V1Recipe> parse_v1_recipe(const std::string& text, const std::string& file, Diagnostics* diag) {
    SF_TRY_VOID(check_text(text, file));
    // marked_yaml resolves no nulls: a context `~` is the text "~".
    auto parsed = parse_yaml_tree(text, file, {}, diag, NullText::keep);
    if (!parsed) {
        Error e = parsed.error();
        if (str::starts_with(e.message, "YAML error")) e.hint = "check indentation and quoting";
        return unexpected(std::move(e));
    }
    auto root = std::move(*parsed);
    V1Recipe r;
    r.file = file;
    r.root = std::move(root);
    if (r.root.is_null()) return fail(SourceLoc{file, 1, 1}, "recipe.yaml is empty", "add 'package:' with 'name:' and 'version:'");
    SF_TRY_VOID(Checker(r).recipe(r.root));
    return r;
}

Result<V1Recipe> load_v1_recipe(const std::filesystem::path& dir, Diagnostics* diag) {
    auto path = dir / "recipe.yaml";
    SF_TRY(text, fs::read_file(path));
    SF_TRY(r, parse_v1_recipe(text, path.string(), diag));
    r.dir = dir;
    std::error_code ec;
    for (const char* name : {"variants.yaml", "conda_build_config.yaml"})
        if (std::filesystem::is_regular_file(dir / name, ec)) {
            r.variant_config = dir / name;
            break;
        }
    return r;
}

}  // namespace sf::recipe
