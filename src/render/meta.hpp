#pragma once
// conda-build's metadata rules, reproduced rule for rule: how an output's
// metadata is derived from the top level, which variant keys it uses (the
// text-scanning rules of metadata.py), its hash and its build string.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "recipe/raw_recipe.hpp"
#include "util/pyregex.hpp"
#include "variant/config.hpp"
#include "variant/used_vars.hpp"

namespace sf::render {

using Meta = nlohmann::ordered_json;

// get_value("build/skip") with YAML 1.1 booleans: "true"/"yes"/"on" -> true.
bool meta_truthy(const Meta& v);
std::vector<std::string> string_list(const Meta& v);  // ensure_list of strings
int build_number(const Meta& meta);  // of a meta check_shape() accepted
// conda-build's insert_variant_versions: a bare name in build/host (or in
// run when build/host has it bare) that is a variant key gets "<value>.*".
void insert_variant_versions(Meta& reqs, const variant::Variant& v, const char* env);

// The first group of one of conda-build's section regexes (multiline,
// dotall), computed without a regex; nullopt for any other pattern.
std::optional<std::string> section_fast_path(std::string_view pattern, std::string_view text);
// conda-build's output_re findall (one text per output item) and its
// requirements regex in get_used_vars, without a regex.
std::vector<std::string> output_blocks(std::string_view text);
std::string requirements_block(std::string_view text);

// Text extractions are pure functions of the recipe text and of which
// selectors hold, so they are memoized across variants here.
struct TextCache {
    std::unordered_map<std::string, std::string> memo;
    recipe::SelectorCache selectors;
    std::unordered_map<std::string, size_t> selection_ids;  // selector outcomes -> short id
    // Extracted texts split into selector lines, by extraction pattern.
    std::map<std::string, std::vector<recipe::SelectorLine>> split_lines;
    // Text-scan results of used_vars(), by output and selector outcomes.
    struct Scan {
        std::set<std::string> all, in_requirements;
    };
    std::unordered_map<std::string, Scan> scans;
    std::unordered_map<std::string, std::set<std::string>> script_scans;  // by scanner and script name
    struct NumpyPins {
        bool xx = false, excluded = false;
    };
    std::unordered_map<const std::string*, NumpyPins> numpy_pins;  // by requirements text (owned here)
    // First group of `pattern` (multiline, dotall) searched in `text`,
    // memoized by pattern and `text_id`, a short name that identifies `text`.
    const std::string& extract(const char* pattern, const std::string& text, const std::string& text_id);
    // A compiled regex, compiled once.
    const PyRegex& regex(const std::string& pattern, unsigned flags = PyRegex::none);

private:
    std::map<std::string, PyRegex, std::less<>> regexes_;
    std::unordered_map<std::string, std::string> extracts_;  // by pattern + text id
};

// Everything needed to reason about one variant's rendering of the recipe.
struct VariantText {
    const recipe::RawRecipe* raw = nullptr;
    const jinja::Context* ns = nullptr;  // selector namespace
    std::string subdir;
    Meta meta;  // the rendered top-level dict
    TextCache* cache = nullptr;  // required: set by the renderer
    Diagnostics* diag = nullptr;  // warnings of this render
    mutable std::map<std::string, bool> outcomes;  // selector -> kept, for this variant
    std::string outcome_key;                       // outcomes, flattened: the memo key

    // conda-build's get_recipe_text(extract_pattern, apply_selectors)
    // Memoized in `cache`: the reference lives as long as the cache.
    const std::string& recipe_text(const char* pattern, bool apply_selectors) const;
    // The whole recipe with this variant's selectors applied, as its pass
    // selected it: recipe_text(nullptr, true) then selects nothing again.
    void seed_selected_text(std::string text) const;
    const std::string& outputs_text(bool apply_selectors) const;
    const std::string& single_output_text(const std::string& name, bool apply_selectors) const;
};

struct OutputMeta {
    std::string name;
    bool is_output = false;  // false for the top level (or an output named like it)
    Meta meta;               // package/build/requirements/test/about/extra of this output
    Meta output_dict;        // `script` and `files` of its entry in `outputs:`
};

// The top-level sections an OutputMeta carries: all but `outputs` and
// `source`, which no output's metadata is read for.
Meta output_sections(const Meta& meta);

// The outputs of one variant, in recipe order (skipped ones included).
// Without `variant_versions`, bare requirement names keep no variant version
// (conda-smithy's read needs only the names).
Result<std::vector<OutputMeta>> derive_outputs(const VariantText& vt, const variant::Variant& v,
                                               bool variant_versions = true);

struct UsedVarsOptions {
    bool force_global = false;
    bool force_top_level = false;  // an output read as the top level (the whole meta.yaml)
};
std::set<std::string> used_vars(const VariantText& vt, const OutputMeta& om, const variant::Variant& v,
                                const variant::Specials& sp, const variant::UsedVarScanner& scanner,
                                UsedVarsOptions opts = {});

nlohmann::json hash_contents(const VariantText& vt, const OutputMeta& om, const std::set<std::string>& used,
                             const variant::Variant& v, const variant::Specials& sp);

// build_id(): the manual build/string with its h<hash> filled in, or the
// default py312h<hash>_<number>.
std::string build_id(const VariantText& vt, const OutputMeta& om, const variant::Variant& v,
                     const std::string& hash);

}  // namespace sf::render
