#include "feedstock/lint_v1_schema.hpp"

#include <map>

namespace sf::feedstock::v1 {
namespace {

using Table = std::map<std::string_view, std::vector<Field>>;

// One source entry: url, git and path sources share the list (a key of the
// wrong kind is rattler-build's type error, not an unknown field).
const std::vector<Field> kSource = {
    {"url", ""},         {"sha256", ""},     {"md5", ""},          {"file_name", ""},
    {"patches", ""},     {"target_directory", ""}, {"attestation", "attestation"},
    {"git", ""},         {"rev", ""},        {"tag", ""},          {"branch", ""},
    {"depth", ""},       {"lfs", ""},        {"submodules", ""},   {"expected_commit", ""},
    {"path", ""},        {"use_gitignore", ""}, {"filter", "include_exclude"}};

const Table& table() {
    static const Table t = {
        {"recipe", {{"schema_version", ""}, {"context", ""}, {"package", "package"}, {"source", "source"},
                    {"build", "build"}, {"requirements", "requirements"}, {"tests", "test"},
                    {"about", "about"}, {"extra", ""}}},
        {"multi-output recipe", {{"schema_version", ""}, {"context", ""}, {"recipe", "package"}, {"version", ""},
                                 {"source", "source"}, {"build", "build"}, {"tests", "test"}, {"about", "about"},
                                 {"extra", ""}, {"outputs", ""}}},
        {"package", {{"name", ""}, {"version", ""}}},
        {"staging output", {{"staging", "staging"}, {"source", "source"},
                            {"requirements", "staging requirements"}, {"build", "staging build"}}},
        {"staging", {{"name", ""}}},
        {"staging requirements", {{"build", ""}, {"host", ""}, {"ignore_run_exports", "ignore_run_exports"}}},
        {"staging build", {{"script", "script"}, {"steps", "step"}}},
        {"package output", {{"package", "package"}, {"inherit", "inherit"}, {"source", "source"},
                            {"requirements", "requirements"}, {"build", "build"}, {"about", "about"},
                            {"tests", "test"}}},
        {"inherit", {{"from", ""}, {"run_exports", ""}}},
        {"source", kSource},
        {"attestation", {{"bundle_url", ""}, {"publishers", ""}}},
        {"include_exclude", {{"include", ""}, {"exclude", ""}}},
        {"requirements", {{"build", ""}, {"host", ""}, {"run", ""}, {"run_constraints", ""}, {"extras", ""},
                          {"run_exports", "run_exports"}, {"ignore_run_exports", "ignore_run_exports"}}},
        {"run_exports", {{"noarch", ""}, {"strong", ""}, {"strong_constraints", ""}, {"weak", ""},
                         {"weak_constraints", ""}}},
        {"ignore_run_exports", {{"by_name", ""}, {"from_package", ""}}},
        {"about", {{"homepage", ""}, {"license", ""}, {"license_file", ""}, {"license_family", ""},
                   {"summary", ""}, {"description", ""}, {"documentation", ""}, {"repository", ""}}},
        {"build", {{"number", ""}, {"string", ""}, {"script", "script"}, {"steps", "step"}, {"noarch", ""},
                   {"flags", ""}, {"python", "build python"}, {"skip", ""}, {"always_copy_files", ""},
                   {"always_include_files", ""}, {"merge_build_and_host_envs", ""}, {"files", "include_exclude"},
                   {"dynamic_linking", "dynamic_linking"}, {"variant", "variant"},
                   {"prefix_detection", "prefix_detection"}, {"post_process", "post_process"}}},
        {"script", {{"interpreter", ""}, {"env", ""}, {"secrets", ""}, {"content", ""}, {"file", ""}, {"cwd", ""}}},
        {"step", {{"run", ""}, {"if", ""}, {"interpreter", ""}, {"cwd", ""}, {"env", ""}}},
        {"build python", {{"entry_points", ""}, {"skip_pyc_compilation", ""}, {"use_python_app_entrypoint", ""},
                          {"version_independent", ""}, {"site_packages_path", ""}}},
        {"dynamic_linking", {{"rpaths", ""}, {"binary_relocation", ""}, {"missing_dso_allowlist", ""},
                             {"rpath_allowlist", ""}, {"overdepending_behavior", ""},
                             {"overlinking_behavior", ""}}},
        {"variant", {{"use_keys", ""}, {"ignore_keys", ""}, {"down_prioritize_variant", ""}}},
        {"prefix_detection", {{"force_file_type", "force_file_type"}, {"ignore", ""}, {"ignore_binary_files", ""}}},
        {"force_file_type", {{"text", ""}, {"binary", ""}}},
        {"post_process", {{"files", ""}, {"regex", ""}, {"replacement", ""}}},
        // One test: its kind is the key it has (python, script, ...); the
        // union is checked, each kind's own fields below.
        {"test", {{"python", "python test"}, {"perl", "perl test"}, {"r", "r test"}, {"ruby", "ruby test"},
                  {"script", "script"}, {"requirements", "test requirements"}, {"files", "test files"},
                  {"downstream", ""}, {"package_contents", "package_contents"}}},
        {"python test", {{"imports", ""}, {"pip_check", ""}, {"python_version", ""}}},
        {"perl test", {{"uses", ""}}},
        {"r test", {{"libraries", ""}}},
        {"ruby test", {{"requires", ""}}},
        {"test requirements", {{"run", ""}, {"build", ""}}},
        {"test files", {{"source", ""}, {"recipe", ""}}},
        {"package_contents", {{"files", "exists"}, {"site_packages", ""}, {"bin", ""}, {"lib", ""},
                              {"include", ""}, {"strict", ""}}},
        {"exists", {{"exists", ""}, {"not_exists", ""}}},
    };
    return t;
}

}  // namespace

const std::vector<Field>* fields_of(std::string_view section) {
    auto it = table().find(section);
    return it == table().end() ? nullptr : &it->second;
}

std::string_view output_section(bool staging) { return staging ? "staging output" : "package output"; }

}  // namespace sf::feedstock::v1
