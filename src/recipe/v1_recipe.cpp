// recipe.yaml stage 0: the tree and the schema's structural rules, as
// rattler-build's stage0 parser checks them (unknown keys, the output kinds,
// schema_version), each error at file:line:col.
#include "recipe/v1_recipe.hpp"

#include <algorithm>
#include <vector>

#include "core/try.hpp"
#include "recipe/raw_recipe.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::recipe {
namespace {

using Keys = std::vector<std::string_view>;

const Keys kSingleKeys = {"$schema", "schema_version", "context", "package", "build", "about",
                              "requirements", "extra", "source", "tests"};
const Keys kMultiKeys = {"$schema", "schema_version", "context", "recipe", "build", "about",
                             "extra", "source", "tests", "outputs"};
const Keys kPackageOutputKeys = {"package", "inherit", "source", "build", "requirements", "tests", "about",
                                     "extra"};
const Keys kStagingOutputKeys = {"staging", "source", "requirements", "build"};
const Keys kRequirementKeys = {"build", "host", "run", "run_constraints", "run_exports", "ignore_run_exports"};

std::string joined(const Keys& keys) {
    std::string out;
    for (auto k : keys) out += (out.empty() ? "" : ", ") + std::string(k);
    return out;
}

class Checker {
public:
    Checker(const V1Recipe& r) : r_(r) {}

    Result<void> mapping(const YamlNode& n, const std::string& what) const {
        if (n.is_mapping()) return {};
        return fail(r_.at(n), what + " must be a mapping", "write '" + what + ":' followed by indented 'key: value' lines");
    }
    // Every key of `n` is one of `keys` (conditionals aside, where allowed).
    Result<void> keys(const YamlNode& n, const std::string& what, const Keys& keys) const {
        SF_TRY_VOID(mapping(n, what));
        for (const auto& [k, v] : n.pairs) {
            if (std::find(keys.begin(), keys.end(), k.scalar) != keys.end()) continue;
            return fail(r_.at(k), "unknown field '" + k.scalar + "' in " + what, "valid fields are: " + joined(keys));
        }
        return {};
    }
    Result<void> name_in(const YamlNode& n, const std::string& what, bool version_required) const {
        SF_TRY_VOID(keys(n, what, {"name", "version"}));
        const YamlNode* name = n.find("name");
        if (!name || !name->is_scalar() || name->scalar.empty())
            return fail(r_.at(n), "missing field 'name' in " + what, "add 'name: <package name>'");
        if (version_required && !n.find("version"))
            return fail(r_.at(n), "missing field 'version' in " + what, "add 'version: <version>'");
        return {};
    }
    Result<void> requirements(const YamlNode& n, const std::string& what) const {
        return keys(n, what + " requirements", kRequirementKeys);
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
        for (const auto& [k, v] : n.pairs) SF_TRY_VOID(conditionals(v));
        return {};
    }
    Result<void> output(const YamlNode& o) const {
        if (!o.is_mapping()) return fail(r_.at(o), "an output must be a mapping", "start it with 'package:' or 'staging:'");
        if (o.find("staging")) {
            SF_TRY_VOID(keys(o, "staging output", kStagingOutputKeys));
            SF_TRY_VOID(name_in(*o.find("staging"), "staging", false));
            if (const auto* req = o.find("requirements"))
                SF_TRY_VOID(keys(*req, "staging requirements", {"build", "host", "ignore_run_exports"}));
            return {};
        }
        if (!o.find("package"))
            return fail(r_.at(o), "an output must have either a 'staging' or a 'package' key",
                        "outputs are '- package: {name: ...}' or '- staging: {name: ...}'");
        SF_TRY_VOID(keys(o, "output", kPackageOutputKeys));
        SF_TRY_VOID(name_in(*o.find("package"), "package", false));
        if (const auto* req = o.find("requirements")) SF_TRY_VOID(requirements(*req, "output"));
        return {};
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
        for (const auto& [k, v] : c->pairs)
            if (v.is_mapping())
                return fail(r_.at(v), "context value '" + k.scalar + "' must be a scalar or a list",
                            "context holds variables: 'name: value'");
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
        SF_TRY_VOID(conditionals(root));
        if (const YamlNode* outs = root.find("outputs")) {
            SF_TRY_VOID(keys(root, "multi-output recipe", kMultiKeys));
            if (const auto* rec = root.find("recipe")) SF_TRY_VOID(name_in(*rec, "recipe", false));
            if (!outs->is_sequence() || outs->items.empty())
                return fail(r_.at(*outs), "outputs must be a non-empty list", "write '- package: {name: ...}' items");
            for (const auto& o : outs->items)
                if (!is_conditional(o)) SF_TRY_VOID(output(o));
            return {};
        }
        SF_TRY_VOID(keys(root, "recipe", kSingleKeys));
        const YamlNode* pkg = root.find("package");
        if (!pkg) return fail(r_.at(root), "missing field 'package'", "add 'package:' with 'name:' and 'version:', or 'outputs:'");
        SF_TRY_VOID(name_in(*pkg, "package", true));
        if (const auto* req = root.find("requirements")) SF_TRY_VOID(requirements(*req, "recipe"));
        return {};
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
    auto parsed = parse_yaml_tree(text, file, {}, diag);
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
