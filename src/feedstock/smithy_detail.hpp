#pragma once
// Shared between smithy.cpp (the feedstock: its inputs, the file names and
// their YAML) and smithy_target.cpp (one target platform: spec, render,
// used keys, CI jobs).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "feedstock/forge_config.hpp"
#include "feedstock/smithy.hpp"
#include "recipe/raw_recipe.hpp"
#include "recipe/v1_recipe.hpp"
#include "recipe/selectors.hpp"
#include "render/output.hpp"
#include "variant/config.hpp"

namespace sf::feedstock::detail {

using Values = std::vector<std::string>;
using VMap = std::map<std::string, std::string>;
using Outputs = std::vector<const render::RenderedOutput*>;

inline bool contains(const Values& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// One file's content before it is written: key -> values, the zip groups,
// pin_run_as_build.
struct Config {
    std::map<std::string, Values> lists;
    std::vector<Values> zip_keys;
    std::map<std::string, variant::PinRunAsBuild> prab;
    bool has_zip = false, has_prab = false;
};

// The text every used key must appear in: meta.yaml and the recipe's other
// files (scripts, configs), with '-' read as '_' as conda-build's
// requirement scan does.
struct KeyCorpus {
    std::string text;  // '-' read as '_'
    bool compilers = false, stdlib = false, cdt = false;  // compiler(), stdlib(), cdt() appear
    // A substring, not a word: conda-build's `{% if %}` pattern finds "orc"
    // in "torch". Each key costs about its own length, whatever the number of
    // keys (a recipe config of 100k keys is part of the text).
    bool has(const std::string& k) const {
        auto [it, fresh] = seen.try_emplace(k, false);
        if (fresh) it->second = find(k);
        return it->second;
    }
    mutable std::unordered_map<std::string, bool> seen;  // every target asks about the same keys
    void index();  // after `text` is complete

private:
    bool find(const std::string& k) const;
    bool may_have(const std::string& k) const;
    // The words of `text` (runs of [A-Za-z0-9_]) and its names (runs of
    // what no YAML or Jinja punctuation breaks, so `a.b`): a key written
    // whole somewhere, as every key of the recipe's own config is, is found
    // without a scan.
    std::unordered_set<std::string> words;
    // Which 4-byte sequences occur in `text`, hashed into a bitmap: most
    // pinning keys are absent, and one of their 4-grams says so at once.
    static constexpr unsigned kBits = 20;
    std::vector<std::uint64_t> grams = std::vector<std::uint64_t>((1u << kBits) / 64);
    // Bytes scanned for keys that are no word of the text ("orc" in
    // "torch"); past the budget such a key is taken as present, which only
    // keeps it for the render to judge.
    mutable std::size_t scanned = 0;
};

// The rules of the conda-smithy being reproduced (SmithyOptions::smithy_version).
struct Compat {
    bool bools = true;           // >= 3.48.0
    bool keep_cdt = false;       // < 3.52.3
    bool labels_with_gha = true; // >= 3.58.1 (else only when self-hosted)

    static Result<Compat> of(const std::string& version);
};

// What every target of one feedstock is rendered from.
// A config file of the recipe, laid over the pinning in order.
struct RecipeConfig {
    std::filesystem::path file;
    variant::ConfigSyntax syntax = variant::ConfigSyntax::selectors;
};

struct TargetInputs {
    const recipe::RawRecipe* raw;   // meta.yaml, or null for a rattler-build feedstock
    const recipe::V1Recipe* v1;     // recipe.yaml, or null
    const std::string& recipe_text;  // the recipe file's text
    const std::vector<RecipeConfig>& recipe_configs;
    const ForgeConfig& forge;
    const SmithyOptions& opts;
    const std::vector<std::filesystem::path>& migration_paths;
    const KeyCorpus& corpus;       // what reading the configs keeps
    const KeyCorpus& used_corpus;  // the same without the recipe's configs: what prune_unused keeps
    const Compat& compat;
};

// One target's CI jobs, and what naming the files needs.
struct Target {
    ForgeTarget t;
    std::vector<Config> configs;  // one per CI job
    std::set<std::string> top_loop;
    std::string first_dist, first_name;  // metas[0] once sorted by dist(), as conda-smithy names the feedstock
    std::vector<Error> warnings;         // the pinning's, the migrations' and the render's, in that order
    // (key, value) pairs written as YAML integers: variants.yaml's plain
    // integers, which conda-smithy reads with ruamel and dumps as ints.
    std::set<std::pair<std::string, std::string>> ints;
};

// The keys the files hold (`used`), the ones every output uses
// (`top_vars`), and those that make CI jobs (`top_loop`).
struct JobKeys {
    std::set<std::string> used, top_vars, top_loop;
};

// What every feedstock adds to the outputs' keys: the MPI family, python_min,
// the always-kept keys, target_platform as a job key when used.
void finish_keys(JobKeys& keys, const TargetInputs& in, const ForgeTarget& ft, const Outputs& metas);

// _merge_deployment_target: on osx, c_stdlib_version and
// MACOSX_DEPLOYMENT_TARGET both become the higher one, the SDK at least that.
VMap merge_deployment_target(VMap v);

// A rattler-build (v1) feedstock's keys and variants, as conda-smithy reads
// them through rattler_build_conda_compat (smithy_v1.cpp). `metas` sorted by
// dist(); `full`: the migrated spec exploded.
struct V1Keys {
    JobKeys keys;                               // top_loop without target_platform
    std::vector<variant::Variant> input_variants;  // metas[0]'s: its conda-smithy input variants
    std::vector<VMap> used_variants;            // every output's variants, merged deployment targets
    std::vector<VMap> meta_variants;            // each output's config.variant
};
// What rattler_build_conda_compat gives conda-smithy for a target where
// rattler-build renders no output: the recipe as written (its top-level
// name, version, noarch), or nullopt when conda-smithy then leaves the target
// out (a top-level build.skip that holds something; noarch where noarch
// outputs are not built).
std::optional<render::RenderedOutput> unrendered_output(const recipe::V1Recipe& r, bool keep_noarch);

Result<V1Keys> v1_job_keys(const render::RenderedRecipe& rr, const Outputs& metas,
                           const std::vector<variant::Variant>& full, const variant::Specials& sp);

// The os.environ values conda-smithy has set once it reaches target `ft`:
// those of `os_environ` (the earlier targets' stay, as they do in os.environ)
// with this target's CONFIG_VERSION, BUILD_PLATFORM, DEFAULT_LINUX_VERSION
// and CF_CUDA_ENABLED over them.
recipe::EnvOverlay target_environ(recipe::EnvOverlay os_environ, const ForgeConfig& forge, const ForgeTarget& ft,
                                  bool uses_cuda);

// The target rendered with `os_environ` over the process environment, and its
// configs collapsed into CI jobs.
Result<Target> render_target(const TargetInputs& in, const ForgeTarget& ft, const recipe::EnvOverlay& os_environ);

}  // namespace sf::feedstock::detail
