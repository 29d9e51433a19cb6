// The tools a build runs, looked for before anything is fetched or made, so
// that a missing one is the first error, not a download's or an env's.
#include <string>
#include <vector>

#include "engine/engine_detail.hpp"
#include "util/strings.hpp"

namespace sf::engine::detail {

namespace {

// Every source the plan fetches: the top level's and recipe.yaml's staging outputs'.
std::vector<const types::Source*> plan_sources(const plan::BuildPlan& p) {
    std::vector<const types::Source*> out;
    for (const auto& b : p.builds) {
        for (const auto& s : b.sources) out.push_back(&s);
        for (const auto& so : b.stagings)
            for (const auto& s : so.sources) out.push_back(&s);
    }
    return out;
}

std::string at(const types::Source& s) {
    std::string where = s.where.str();
    return where.empty() ? "" : " at " + where;
}

}  // namespace

Result<void> check_build_tools(const BuildOptions& opts, const plan::BuildPlan& p, const process::Env& env) {
    const std::string path = env_get(env, "PATH");
    auto have = [&path](const std::string& tool) { return process::find_executable(tool, path).has_value(); };
    std::vector<std::string> missing;
    if (opts.provider != env::ProviderKind::system) {
        // What the provider cannot do at all (pixi) is said before what is missing.
        auto argv = env::external_create_argv(opts.provider, opts.provider_tool, "/", {}, {});
        if (!argv) return Unexpected<Error>{argv.error()};
        if (!have(argv->front()))
            missing.push_back(argv->front() + " (--env-provider " + env::to_string(opts.provider) +
                              " makes the build, host and test environments with it)");
    }
    const types::Source* git_source = nullptr;
    const types::Source* patched = nullptr;
    for (const types::Source* s : plan_sources(p)) {
        if (!git_source && !s->git_url.empty()) git_source = s;
        if (!patched && !s->patches.empty()) patched = s;
    }
    if (git_source && !have("git")) missing.push_back("git (for the git source" + at(*git_source) + ")");
    // apply_patches takes git apply where patch is missing.
    if (patched && !have("patch") && !have("git"))
        missing.push_back("patch (for the patches of the source" + at(*patched) + "; git would do too)");
    if (missing.empty()) return {};
    const std::string them = missing.size() == 1 ? "it" : "them";
    std::string hint = "install " + them + " or put " + them + " on PATH (PATH=" + path + ")";
    if (opts.provider != env::ProviderKind::system) hint += ", or build with the system provider (the default)";
    return fail_runtime({}, "not on PATH: " + str::join(missing, ", "), hint);
}

}  // namespace sf::engine::detail
