#pragma once
// `splitforge rerender`: one variant file per CI job in variants/.
//
// Jobs split only over the keys that split the staging (top-level) build
// (render::RenderedRecipe::staging_keys, conda-build's distribute_variants
// loop): keys used only by per-Python outputs stay inside one megabuild job,
// and output-local keys (extra/splitforge/output_keys) never split a job. A
// platform where the recipe skips everything gets no job.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "feedstock/ci_job.hpp"
#include "feedstock/workflow.hpp"

namespace sf::feedstock {

// The platforms rerender renders for unless told otherwise.
const std::vector<std::string>& default_platforms();

struct RerenderOptions {
    std::filesystem::path recipe_dir = "recipe";
    // A recipe dir (ours: variants/ layout) or a conda-forge feedstock dir
    // (holding recipe/meta.yaml: conda-smithy's .ci_support/, smithy.hpp).
    std::filesystem::path variants_dir;  // empty: variants/, or FEEDSTOCK/.ci_support
    std::vector<std::string> platforms;                  // empty: default_platforms()
    std::vector<std::filesystem::path> variant_files;    // extra inputs (-m)
    std::vector<std::filesystem::path> exclusive_files;  // -e: a global pinning file
    bool strict = false;  // conda-build's leniencies are errors, not warnings
    std::string smithy_version;  // feedstock mode: reproduce this conda-smithy's rules (smithy.hpp)
    // "github": also write the CI workflows (workflow.hpp). Without it they
    // are written when conda-forge.yml (beside the variants dir) names
    // github_actions in `provider:`.
    std::string ci;
    std::filesystem::path workflows_dir;  // empty: .github/workflows beside the variants dir
};

enum class RerenderMode { write, check };

struct RerenderResult {
    std::vector<CiJob> jobs;             // sorted by name
    std::vector<std::string> skipped;    // platforms with no job (everything skipped)
    // File names (not paths) in the variants dir.
    std::vector<std::string> written, unchanged, removed;
    std::vector<std::string> stale, missing, extra;  // what --check found (or would fix)
    std::map<std::string, std::vector<std::string>> stale_keys;  // stale file -> keys that differ
    bool feedstock = false;              // conda-smithy mode
    std::vector<std::string> files;      // conda-smithy mode: every file name, sorted
    std::vector<Error> warnings;  // the renders' (unknown selector names, ...), once each
    std::string migrations;       // conda-smithy mode: where the migration files came from (one line)
    std::vector<std::string> ci_setup;   // extra/splitforge/ci_setup
    std::vector<std::string> ci_smoke;   // extra/splitforge/smoke
    std::string ci_smoke_script;         // extra/splitforge/smoke_script
    // The CI workflows, when rerender writes them: file names in `dir`.
    struct Workflows {
        std::string dir;
        std::vector<std::string> platforms;  // the platforms whose configs they build
        std::vector<std::string> files, written, removed, stale, missing, extra;
    };
    std::optional<Workflows> workflows;
    bool up_to_date() const {
        return stale.empty() && missing.empty() && extra.empty() &&
               (!workflows || (workflows->stale.empty() && workflows->missing.empty() && workflows->extra.empty()));
    }
};

// The jobs, without touching the variants dir.
Result<RerenderResult> plan_jobs(const RerenderOptions& opts);

// Plans, then writes (atomically, only changed files; removes generated files
// no longer wanted) or, in check mode, only compares.
Result<RerenderResult> rerender(const RerenderOptions& opts, RerenderMode mode);

// Where conda-forge.yml and .github/ are: the folder holding the variants
// dir ("." for the default variants/).
std::filesystem::path feedstock_root(const RerenderOptions& opts);

// What the workflows are made from, or nullopt when none are wanted (no
// --ci, and no conda-forge.yml asking for github_actions). The platforms
// are those conda-forge.yml's `provider:` gives github_actions (conda-smithy's
// defaults for a key it leaves out), every platform without the file.
Result<std::optional<WorkflowInputs>> workflow_inputs(const RerenderOptions& opts, const RerenderResult& planned,
                                                      std::vector<std::string>& platforms);

// The header line every generated file starts with (rerender only removes
// files that carry it).
bool is_generated(const std::string& text);

}  // namespace sf::feedstock
