#pragma once
// conda-forge.yml: what of it changes conda-smithy's .ci_support files.
// Defaults are conda-smithy's (conda_smithy/data/conda-forge.yml); a key the
// file leaves out keeps its default.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sf::feedstock {

// One platform conda-smithy renders for ("linux_aarch64"), and how.
struct ForgeTarget {
    std::string name;            // linux_aarch64 (conda-smithy's spelling)
    std::string build_platform;  // linux_64: where its CI job runs
    std::vector<std::string> providers;  // github_actions, azure, travis, ...
    bool keep_noarch = false;    // noarch outputs are built here
    std::string os_version;      // os_version[name] (linux), or ""

    std::string subdir() const;        // linux-aarch64
    std::string build_subdir() const;  // linux-64
};

struct ForgeConfig {
    std::map<std::string, std::string> build_platform;          // target -> build platform
    std::map<std::string, std::vector<std::string>> provider;   // platform or os -> providers
    std::map<std::string, std::string> os_version;
    std::vector<std::string> noarch_platforms = {"linux_64"};
    std::string docker_fallback_image = "quay.io/condaforge/linux-anvil-comp7";
    std::string recipe_dir = "recipe";
    std::string config_version = "2";
    bool github_actions_self_hosted = false;
    bool provider_given = false;  // the file has a `provider:` entry
    // conda_build_tool: "rattler-build" means the recipe is recipe/recipe.yaml
    // (v1) and conda-smithy asks rattler-build which keys each output uses.
    std::string conda_build_tool = "conda-build";
    bool rattler_build() const { return conda_build_tool == "rattler-build"; }
    // conda_build: {error_overlinking: true, pkg_format: 2, ...}: what
    // conda-forge-ci-setup copies into .condarc (`conda_build.<key>`) for
    // conda-build; scalars as written.
    std::map<std::string, std::string> conda_build;

    // The platforms that get files, sorted by name: those whose build
    // platform has a CI provider (conda-smithy's _get_platforms_of_provider).
    std::vector<ForgeTarget> targets() const;
};

// Reads FEEDSTOCK/conda-forge.yml (absent: the defaults). Errors name file:line.
Result<ForgeConfig> read_forge_config(const std::filesystem::path& feedstock_dir);

}  // namespace sf::feedstock
