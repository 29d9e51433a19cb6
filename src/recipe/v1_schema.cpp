// recipe.yaml's key table; see v1_schema.hpp. Each section lists its keys in
// the order rattler-build's "valid fields are" help names them.
#include "recipe/v1_schema.hpp"

#include <algorithm>
#include <map>

#include "recipe/v1_recipe.hpp"
#include "util/strings.hpp"

// The table's rows are aggregates that leave trailing fields at their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sf::recipe::v1 {
namespace {

// How a field's value may hold an `if:` block of its own (not as a list
// item, which every list allows).
enum class Cond {
    refused,       // a scalar or a list: rattler-build wants a scalar or a sequence
    list_or_item,  // a list or one item, which may be an if/then/else block
    free,          // free-form (extra, env): `if` is just a key
};

struct Field {
    std::string_view key;
    std::string_view section;  // what the value is read as; "" is not checked
    Cond cond = Cond::refused;
};

struct Section {
    std::string_view name;  // as messages name it
    std::vector<Field> fields;
    // An entry of several kinds (a source, a test, an output): the first of
    // these keys it holds picks the section its keys are checked against.
    std::vector<Field> kinds;
    Refusal unknown = Refusal::parse_error;
    bool conditionals = true;  // `- if:` items are conditionals (not in steps, nor outputs)
    std::string_view hint;     // said instead of the list of fields
    std::string_view no_kind;  // an entry holding none of `kinds`: the error
};

using Table = std::map<std::string_view, Section, std::less<>>;

// A test entry of a kind read by one key: rattler-build reads that key and
// never looks at the entry's others.
Section kind_entry(std::string_view name, std::string_view key, std::string_view inner, std::string_view hint) {
    return Section{name, {{key, inner}}, {}, Refusal::ignored, true, hint};
}

const Table& table() {
    static const Table t = [] {
        Table t;
        t["recipe"] = {"recipe",
                       {{"$schema", ""}, {"package", "package"}, {"build", "build"}, {"about", "about"},
                        {"requirements", "requirements"}, {"extra", "", Cond::free}, {"source", "source", Cond::list_or_item},
                        {"tests", "test"}, {"schema_version", ""}, {"context", "", Cond::free}}};
        // No `$schema` here: rattler-build's multi-output parser does not list it.
        t["multi-output recipe"] = {"multi-output recipe",
                                    {{"recipe", "recipe metadata"}, {"version", ""}, {"build", "build"},
                                     {"about", "about"}, {"extra", "", Cond::free},
                                     {"source", "source", Cond::list_or_item}, {"tests", "test"},
                                     {"outputs", "output"}, {"schema_version", ""}, {"context", "", Cond::free}}};
        t["recipe metadata"] = {"recipe", {{"name", ""}, {"version", ""}}};
        t["package"] = {"package", {{"name", ""}, {"version", ""}}};
        // rattler-build's parse_outputs takes no `- if:` items: each output is
        // a staging or a package output (v1_recipe.cpp names the error).
        t["output"] = {"output", {}, {{"staging", "staging output"}, {"package", "package output"}}};
        t["output"].conditionals = false;
        t["staging output"] = {"staging output",
                               {{"staging", "staging"}, {"source", "source", Cond::list_or_item},
                                {"requirements", "staging requirements"}, {"build", "staging build"}}};
        t["staging"] = {"staging", {{"name", ""}}};
        t["staging requirements"] = {"staging requirements",
                                     {{"build", ""}, {"host", ""}, {"ignore_run_exports", "ignore_run_exports"}},
                                     {}, Refusal::parse_error, true,
                                     "staging outputs can only have 'build', 'host', and 'ignore_run_exports' "
                                     "requirements"};
        t["staging build"] = {"staging build", {{"script", "script"}, {"steps", "step"}}, {}, Refusal::parse_error,
                              true, "staging outputs can only have 'script' or 'steps' in the build section"};
        t["package output"] = {"package output",
                               {{"package", "package"}, {"inherit", "inherit"}, {"source", "source", Cond::list_or_item},
                                {"requirements", "requirements"}, {"build", "build"}, {"about", "about"},
                                {"tests", "test"}}};
        t["inherit"] = {"inherit", {{"from", ""}, {"run_exports", ""}}};
        t["source"] = {"source", {}, {{"git", "git source"}, {"url", "url source"}, {"path", "path source"}}};
        t["source"].no_kind = "a source must have one of: git, url or path";
        t["git source"] = {"git source",
                           {{"git", ""}, {"rev", ""}, {"tag", ""}, {"branch", ""}, {"depth", ""}, {"patches", ""},
                            {"target_directory", ""}, {"lfs", ""}, {"submodules", ""}, {"expected_commit", ""},
                            {"filter", "filter"}}};
        t["url source"] = {"url source",
                           {{"url", ""}, {"sha256", ""}, {"md5", ""}, {"file_name", ""}, {"patches", ""},
                            {"target_directory", ""}, {"attestation", "attestation"}, {"filter", "filter"}}};
        t["path source"] = {"path source",
                            {{"path", ""}, {"sha256", ""}, {"md5", ""}, {"patches", ""}, {"target_directory", ""},
                             {"file_name", ""}, {"use_gitignore", ""}, {"filter", "filter"}}};
        t["attestation"] = {"attestation", {{"bundle_url", ""}, {"publishers", ""}}};
        t["filter"] = {"filter", {{"include", ""}, {"exclude", ""}}};
        t["requirements"] = {"requirements",
                             {{"build", ""}, {"host", ""}, {"run", ""}, {"run_constraints", ""}, {"extras", ""},
                              {"run_exports", "run_exports"}, {"ignore_run_exports", "ignore_run_exports"}}};
        t["run_exports"] = {"run_exports",
                            {{"noarch", ""}, {"strong", ""}, {"strong_constraints", ""}, {"weak", ""},
                             {"weak_constraints", ""}}};
        t["ignore_run_exports"] = {"ignore_run_exports", {{"by_name", ""}, {"from_package", ""}}};
        t["about"] = {"about",
                      {{"homepage", ""}, {"license", ""}, {"license_file", ""}, {"license_family", ""},
                       {"summary", ""}, {"description", ""}, {"documentation", ""}, {"repository", ""}}};
        t["build"] = {"build",
                      {{"number", ""}, {"string", ""}, {"script", "script"}, {"steps", "step"}, {"noarch", ""},
                       {"flags", ""}, {"python", "build python"}, {"skip", "", Cond::list_or_item}, {"always_copy_files", ""},
                       {"always_include_files", ""}, {"merge_build_and_host_envs", ""}, {"files", "files"},
                       {"dynamic_linking", "dynamic_linking"}, {"variant", "variant"},
                       {"prefix_detection", "prefix_detection"}, {"post_process", "post_process"}}};
        t["script"] = {"script object",
                       {{"interpreter", ""}, {"env", "", Cond::free}, {"secrets", ""}, {"content", ""}, {"file", ""},
                        {"cwd", ""}}};
        t["step"] = {"step", {{"run", ""}, {"if", ""}, {"interpreter", ""}, {"cwd", ""}, {"env", "", Cond::free}}, {},
                     Refusal::parse_error, false, ""};
        t["files"] = {"files mapping", {{"include", ""}, {"exclude", ""}}};
        t["build python"] = {"python",
                             {{"entry_points", ""}, {"skip_pyc_compilation", ""}, {"use_python_app_entrypoint", ""},
                              {"version_independent", ""}, {"site_packages_path", ""}}};
        t["dynamic_linking"] = {"dynamic_linking",
                                {{"rpaths", ""}, {"binary_relocation", ""}, {"missing_dso_allowlist", ""},
                                 {"rpath_allowlist", ""}, {"overdepending_behavior", ""},
                                 {"overlinking_behavior", ""}}};
        t["variant"] = {"variant", {{"use_keys", ""}, {"ignore_keys", ""}, {"down_prioritize_variant", ""}}};
        t["prefix_detection"] = {"prefix_detection",
                                 {{"force_file_type", "force_file_type"}, {"ignore", ""}, {"ignore_binary_files", ""}}};
        t["force_file_type"] = {"force_file_type", {{"text", ""}, {"binary", ""}}};
        t["post_process"] = {"post_process", {{"files", ""}, {"regex", ""}, {"replacement", ""}}};
        // A test's kind is the key it holds, tried in rattler-build's order.
        t["test"] = {"test",
                     {},
                     {{"python", "python test entry"}, {"perl", "perl test entry"}, {"r", "r test entry"},
                      {"ruby", "ruby test entry"}, {"script", "script test"}, {"downstream", "downstream test"},
                      {"package_contents", "package_contents test entry"}}};
        t["test"].no_kind = "a test must have one of: python, perl, r, ruby, script, downstream, package_contents";
        t["python test entry"] = kind_entry("python test", "python", "python test",
                                            "rattler-build reads only 'python' in a python test");
        t["perl test entry"] = kind_entry("perl test", "perl", "perl test", "rattler-build reads only 'perl' in a perl test");
        t["r test entry"] = kind_entry("r test", "r", "r test", "rattler-build reads only 'r' in an R test");
        t["ruby test entry"] = kind_entry("ruby test", "ruby", "ruby test", "rattler-build reads only 'ruby' in a ruby test");
        t["package_contents test entry"] =
            kind_entry("package_contents test", "package_contents", "package_contents",
                       "rattler-build reads only 'package_contents' in a package_contents test");
        t["python test"] = {"python test", {{"imports", "", Cond::list_or_item}, {"pip_check", ""}, {"python_version", ""}}};
        t["perl test"] = {"perl test", {{"uses", ""}}};
        t["r test"] = {"r test", {{"libraries", ""}}};
        t["ruby test"] = {"ruby test", {{"requires", ""}}};
        t["script test"] = {"script test",
                            {{"script", "script"}, {"requirements", "test requirements"}, {"files", "test files"}}};
        t["test requirements"] = {"test requirements", {{"run", ""}, {"build", ""}}};
        t["test files"] = {"test files", {{"source", ""}, {"recipe", ""}}};
        t["downstream test"] = {"downstream test", {{"downstream", ""}}};
        t["package_contents"] = {"package_contents",
                                 {{"files", "package_contents files"}, {"site_packages", ""}, {"bin", ""},
                                  {"lib", ""}, {"include", ""}, {"strict", ""}}};
        t["package_contents files"] = {"package_contents files", {{"exists", ""}, {"not_exists", ""}}};
        return t;
    }();
    return t;
}

std::vector<std::string> names(const Section& s) {
    std::vector<std::string> out;
    for (const auto& f : s.fields) out.emplace_back(f.key);
    return out;
}

// Where a value stands: as a list item (or a branch of an if/then/else),
// where rattler-build reads `if:` as a conditional, or as a field's own
// value, where only a list-or-item field does.
enum class Place { item, field };

class Walker {
public:
    explicit Walker(std::vector<KeyProblem>& out) : out_(out) {}

    void walk(const YamlNode& n, std::string_view id, Place place) {
        if (id.empty()) return;
        const Section& s = table().at(id);
        if (n.is_sequence()) {
            for (const auto& item : n.items) walk(item, id, Place::item);
            return;
        }
        if (!n.is_mapping()) return;
        if (s.conditionals && place == Place::item && is_conditional(n)) return conditional(n, id);
        if (!s.kinds.empty()) {
            for (const auto& k : s.kinds)
                if (n.find(k.key)) return walk(n, k.section, place);
            // An output with neither kind: the recipe checker names it.
            if (!s.no_kind.empty()) out_.push_back({&n, Refusal::parse_error, std::string(s.no_kind), "", true});
            return;
        }
        for (const auto& [k, v] : n.pairs) {
            auto f = std::find_if(s.fields.begin(), s.fields.end(), [&](const Field& x) { return x.key == k.scalar; });
            if (f == s.fields.end()) unknown(k, s);
            else if (f->cond == Cond::refused && f->section.empty() && is_conditional(v)) whole_value(k, v);
            else walk(v, f->section, f->cond == Cond::list_or_item ? Place::item : Place::field);
        }
    }

private:
    // Both branches are walked: each is taken for some variant.
    void conditional(const YamlNode& n, std::string_view id) {
        for (const auto& [k, v] : n.pairs) {
            if (k.scalar == "then" || k.scalar == "else") walk(v, id, Place::item);
            else if (k.scalar != "if")
                out_.push_back({&k, Refusal::parse_error, "unknown field '" + k.scalar + "' in an if/then/else block",
                                "an 'if:' block holds only 'if', 'then' and 'else'"});
        }
    }

    // A scalar or list field given an `if:` block: rattler-build's parser
    // wants a scalar or a sequence there ("expected scalar/sequence").
    void whole_value(const YamlNode& key, const YamlNode& v) {
        out_.push_back({&v, Refusal::parse_error, "'" + key.scalar + "' cannot be an if/then/else block",
                        "rattler-build reads 'if:' only as a list item: write '- if: ...' items under '" +
                            key.scalar + ":', or a value '${{ a if cond else b }}'"});
    }

    void unknown(const YamlNode& key, const Section& s) {
        auto valid = names(s);
        // A near name only helps where the key is refused.
        std::string near = s.unknown == Refusal::parse_error ? str::closest(key.scalar, valid) : "";
        std::string hint = near.empty() ? "" : "did you mean '" + near + "'? ";
        // A section's own `if:` block (`requirements: {if: ..., then: ...}`).
        if (key.scalar == "if" && s.unknown == Refusal::parse_error)
            hint += "rattler-build reads 'if:' only as a list item ('- if: ...'), not as a key of " + std::string(s.name) + "; ";
        hint += s.hint.empty() ? "valid fields are: " + str::join(valid, ", ") : std::string(s.hint);
        std::string what = s.unknown == Refusal::ignored ? "field '" + key.scalar + "' is ignored in "
                                                          : "unknown field '" + key.scalar + "' in ";
        out_.push_back({&key, s.unknown, what + std::string(s.name), std::move(hint)});
    }

    std::vector<KeyProblem>& out_;
};

}  // namespace

std::vector<KeyProblem> check_keys(const YamlNode& root) {
    std::vector<KeyProblem> out;
    if (!root.is_mapping()) return out;
    Walker(out).walk(root, root.find("outputs") ? "multi-output recipe" : "recipe", Place::field);
    return out;
}

std::vector<std::string_view> section_keys(std::string_view section) {
    std::vector<std::string_view> out;
    auto it = table().find(section);
    if (it != table().end())
        for (const auto& f : it->second.fields) out.push_back(f.key);
    return out;
}

}  // namespace sf::recipe::v1
