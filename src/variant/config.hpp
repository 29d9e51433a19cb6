#pragma once
// Variant configuration: conda_build_config.yaml, -m files and command-line
// overrides, merged in conda-build's order, then exploded into the matrix.
// All values are strings, as conda-build reads these files (YAML BaseLoader).
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "types/platform.hpp"
#include "variant/selection.hpp"

namespace sf::variant {

struct PinRunAsBuild {
    std::string min_pin, max_pin;
};

// Keys that are not exploded into the matrix.
struct Specials {
    std::vector<std::vector<std::string>> zip_keys;
    std::map<std::string, PinRunAsBuild> pin_run_as_build;
    std::vector<std::string> extend_keys;
    std::vector<std::string> ignore_version;
    std::vector<std::string> ignore_build_only_deps;
    // The zip group holding `key`, or nullptr.
    const std::vector<std::string>* zip_group_of(const std::string& key) const;
    bool is_special(const std::string& key) const;
};

// One point of the matrix: every ordinary key with one value.
struct Variant {
    std::vector<std::pair<std::string, std::string>> values;  // insertion order
    const std::string* get(const std::string& key) const;
    bool has(const std::string& key) const { return get(key) != nullptr; }
    std::string value_or(const std::string& key, const std::string& def) const;
    void set(const std::string& key, std::string value);
    std::map<std::string, std::string> as_map() const;
    bool operator==(const Variant& o) const { return values == o.values; }
};

// zip_keys and pin_run_as_build entries are stored flattened in
// SpecSource::lists, their parts joined by this: "a<SEP>b" is the group
// [a, b], "python<SEP>x.x<SEP>x" a pin_run_as_build entry.
inline constexpr char kSpecialSep = '\x1f';

// One source of settings (a file, the defaults, the command line).
struct SpecSource {
    std::string name;  // file path, "<defaults>" or "<command line>"
    std::vector<std::pair<std::string, std::vector<std::string>>> lists;
    std::map<std::string, int> line_of;  // key -> line in the file
    // (key, value) pairs written as plain YAML scalars: rattler-build reads
    // those typed (`false` a bool, `2` an integer), quoted ones as strings.
    std::set<std::pair<std::string, std::string>> plain;
    // (key, value) pairs rattler-build's legacy conda_build_config.yaml
    // loader leaves to serde_yaml: typed by YAML 1.2's core schema.
    std::set<std::pair<std::string, std::string>> yaml_core;
};

struct CombinedSpec {
    std::vector<std::pair<std::string, std::vector<std::string>>> lists;
    Specials specials;
    std::vector<SpecSource> sources;            // in merge order, defaults first
    std::map<std::string, SourceLoc> origin;    // where each key's final value was set
    const std::vector<std::string>* get(const std::string& key) const;
};

// The defaults conda-build starts from for `platform`.
SpecSource default_spec(const types::Platform& platform);

// Reads one config file (selectors applied for the selection's platform,
// build platform and extra_environ; as in conda-build, target_platform is
// not a name there). Unknown selector names
// and repeated keys are warnings in `diag` (errors without it).
// Which keys to read, when only some can matter (rerender prunes the
// pinning to what the recipe can use). Empty: every key.
using KeyFilter = std::function<bool(const std::string&)>;
// conda_build_config.yaml: `# [selector]` lines. variants.yaml (rattler-build):
// plain YAML, list items may be `if:`/`then:`/`else:` blocks. The v1_ kinds
// are the same files as rattler-build's loaders read them for recipe.yaml
// (SpecSource::plain and ::yaml_core say how their values are typed).
enum class ConfigSyntax {
    selectors,
    conditionals,
    v1_legacy,  // conda_build_config.yaml: a `- <number>` line a string, other plain values serde_yaml's
    v1_plain,   // any other name: plain values marked_yaml's (`~` the text "~")
};

Result<SpecSource> read_config_file(const std::filesystem::path& p, const Selection& sel, Diagnostics* diag = nullptr,
                                    const KeyFilter& keep = {}, ConfigSyntax syntax = ConfigSyntax::selectors);
// A missing file's error names the flag that gave it ("check the -e path");
// read_config_file's own hint names none.
Error name_flag(Error e, const std::string& flag);
// The flag of files[i] when files is `exclusive`, then `between` others (the
// recipe's own config), then -m files: "-e", "" or "-m".
std::string flag_of(size_t i, size_t exclusive, size_t between);
// The same for text already read; `skip_keys` are left out (a migration's
// __migrator and migrator_ts).
Result<SpecSource> read_config_text(const std::string& text, const std::string& file, const Selection& sel,
                                    Diagnostics* diag = nullptr, const std::set<std::string>& skip_keys = {},
                                    const KeyFilter& keep = {}, ConfigSyntax syntax = ConfigSyntax::selectors);

// A merged spec as one source again (zip_keys re-encoded), e.g. to migrate it.
SpecSource as_source(const CombinedSpec& spec, std::string name);

// conda-build's merge order, later wins: its defaults, the -e files, the
// recipe's conda_build_config.yaml, the -m files, then the overrides.
Result<CombinedSpec> load(const Selection& sel, const std::optional<std::filesystem::path>& recipe_config,
                          Diagnostics* diag = nullptr);
Result<CombinedSpec> combine(std::vector<SpecSource> sources);
// rattler-build's order for recipe.yaml (VariantConfig::from_files): no
// conda-build defaults; the -e files (rattler-build has none: read first, as
// conda-smithy reads conda-forge's pinning under a v1 recipe's variants.yaml),
// the recipe's variants.yaml or conda_build_config.yaml, then the -m files,
// then the overrides; target_platform and build_platform
// are set when no file sets them. The matrix size is not checked here: it
// is that of the keys the recipe reads (render_v1).
Result<CombinedSpec> load_v1(const Selection& sel, const std::optional<std::filesystem::path>& recipe_config,
                             Diagnostics* diag = nullptr);
// Whether the final value `value` of `key` was written as a plain scalar.
bool is_plain(const CombinedSpec& spec, const std::string& key, const std::string& value);
// How rattler-build types the final value `value` of `key`: as written, by
// marked_yaml's rule (a plain scalar of variants.yaml) or by serde_yaml's
// (one of a conda_build_config.yaml it does not quote).
enum class ScalarTyping { text, marked_yaml, serde_yaml };
ScalarTyping typing_of(const CombinedSpec& spec, const std::string& key, const std::string& value);

// The full matrix, each key narrowed to its latest source's values as
// conda-build does (filter_combined_spec_to_used_keys: a later list replaces).
std::vector<Variant> explode(const CombinedSpec& spec);

// Keys of the matrix that are ordinary (not special) and in `used`.
std::vector<std::string> loop_vars(const std::vector<Variant>& variants, const Specials& sp,
                                   const std::vector<std::string>& used);

// conda-build's get_reduced_variant_set: keep every value of the used keys
// (and of zip groups touching them), the first value of all other keys.
std::vector<Variant> reduce(const std::vector<Variant>& variants, const Specials& sp,
                            const std::vector<std::string>& used);

// Variants whose `key` is one of `values`; when none match, all of them.
std::vector<Variant> filter_by(std::vector<Variant> variants, const std::string& key,
                               const std::vector<std::string>& values);

}  // namespace sf::variant
