#pragma once
// RenderedRecipe -> BuildPlan: what `splitforge build` will do, decided up
// front. One StagingBuild per top (non-Python) variant; inside it the outputs
// in build order: Python-independent ones first (render order, which is
// dependencies first), then the per-Python outputs grouped by Python, then
// metapackages. Availability is decided here from HostFacts (probed by the
// env stage): the mkl variant needs MKL, cuda needs nvcc, each Python needs a
// discovered interpreter. The plan is pure: no I/O.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "render/output.hpp"

namespace sf::plan {

// What the host offers, as far as planning cares.
struct HostFacts {
    bool mkl = false;
    bool nvcc = false;
    std::set<std::string> pythons;  // "3.12", ... (interpreters with headers)
    bool any_python = false;        // external providers bring their own

    bool has_python(const std::string& minor) const { return any_python || pythons.count(minor) > 0; }
    // An external provider installs whatever is asked for.
    static HostFacts everything() { return {true, true, {}, true}; }
};

enum class SkipUnavailable { no, yes };

enum class Role {
    independent,  // does not depend on the Python version (libtorch)
    per_python,   // built once per Python (pytorch)
    metapackage,  // no script and no files: only metadata (pytorch-cpu)
};
const char* to_string(Role r);

struct Step {
    render::RenderedOutput output;
    Role role = Role::independent;
    std::string python;  // "3.9" for per-Python outputs and their metapackages
};

struct StagingBuild {
    int top_variant = 0;
    variant::Variant variant;   // the staging (top-level) variant
    std::string label;          // "cpu_generic", "cuda13.0_mkl": for progress lines
    std::string python;         // the staging build's Python ("3.12" in megabuild), or ""
    render::Requirements requirements;  // the top level's build/host requirements
    std::vector<types::Source> sources;  // the top level's sources for this variant
    // recipe.yaml's staging outputs, each built once before the steps that
    // inherit it; none: the plan's build_script is the staging build.
    std::vector<render::StagingOutput> stagings;
    std::vector<Step> steps;
    bool needs_cuda = false;
};

struct Skipped {
    std::string what;    // "staging build cpu_mkl" or a dist name
    std::string reason;  // "MKL not found"
};

struct BuildPlan {
    render::RecipeFormat format = render::RecipeFormat::meta_yaml;  // whose packaging rules apply
    std::string name, version, recipe_dir;
    types::Platform platform;  // the target
    std::string build_script;  // top-level build.sh, relative to the recipe
    std::vector<StagingBuild> builds;
    std::vector<Skipped> skipped;
    std::vector<Error> warnings;  // the render's (see RenderedRecipe::warnings)
    int output_count() const;
};

// The Python of an output: its variant's `python`, or "" when it has none.
std::string python_of(const render::RenderedOutput& o);

// A staging build's Python: "python 3.12" in its host requirements
// (megabuild), else a bare "python" means the variant's Python; "" for none.
std::string staging_python(const render::Requirements& r, const variant::Variant& v);

// Whether an output needs the CUDA compiler (cuda-nvcc / nvcc requirement or
// a cuda_compiler_version other than None).
bool needs_cuda(const render::Requirements& r, const variant::Variant& v);

// Whether any requirement of the recipe names python: only then do the
// host's interpreters need probing.
bool needs_python(const render::RenderedRecipe& rr);

// Builds the plan. Unavailable builds or Pythons are an error naming what is
// missing, or with SkipUnavailable::yes are listed in `skipped`.
Result<BuildPlan> make_plan(const render::RenderedRecipe& rr, const HostFacts& host, SkipUnavailable skip);

// A one-screen description (for --dry-run style output and logs).
std::string describe(const BuildPlan& p);

}  // namespace sf::plan
