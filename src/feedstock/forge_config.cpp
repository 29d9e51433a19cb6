#include "feedstock/forge_config.hpp"

#include <algorithm>

#include <yaml-cpp/yaml.h>

#include "recipe/raw_recipe.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::feedstock {
namespace {

namespace stdfs = std::filesystem;

// conda-smithy's defaults: every platform builds on itself.
const std::vector<std::string>& all_platforms() {
    static const std::vector<std::string> p = {
        "emscripten_wasm32", "freebsd_64",  "linux_32",   "linux_64",      "linux_aarch64", "linux_armv6l",
        "linux_armv7l",      "linux_ppc64", "linux_ppc64le", "linux_riscv64", "linux_s390x", "osx_64",
        "osx_arm64",         "wasi_wasm32", "win_32",     "win_64",        "win_arm64",     "zos_z"};
    return p;
}

// What `default` / `emulated` and `native` stand for, per platform
// (conda-smithy's DEFAULT_PROVIDERS and NATIVE_CI_PROVIDER).
struct Providers {
    const char* by_default;
    const char* native;
};

Providers providers_of(const std::string& plat) {
    static const std::map<std::string, Providers> m = {
        {"linux_64", {"github_actions", "github_actions"}}, {"linux_aarch64", {"github_actions", "github_actions"}},
        {"linux_ppc64le", {"github_actions", "travis"}},    {"linux_s390x", {"github_actions", "travis"}},
        {"osx_64", {"azure", "azure"}},                     {"osx_arm64", {"azure", "azure"}},
        {"win_64", {"github_actions", "github_actions"}},   {"win_arm64", {"github_actions", "github_actions"}}};
    auto it = m.find(plat);
    return it == m.end() ? Providers{"github_actions", ""} : it->second;
}

std::string dashed(std::string s) {
    auto p = s.find('_');
    if (p != std::string::npos) s[p] = '-';
    return s;
}

Result<std::vector<std::string>> strings_of(const YAML::Node& n, const std::string& file, const std::string& what) {
    std::vector<std::string> out;
    if (!n || n.IsNull()) return out;
    if (n.IsScalar()) return std::vector<std::string>{n.Scalar()};
    if (!n.IsSequence())
        return fail(SourceLoc{file, n.Mark().line + 1}, what + " must be a string or a list of strings");
    for (const auto& x : n) {
        if (!x.IsScalar()) return fail(SourceLoc{file, x.Mark().line + 1}, what + " must be a list of strings");
        out.push_back(x.Scalar());
    }
    return out;
}

}  // namespace

std::string ForgeTarget::subdir() const { return dashed(name); }
std::string ForgeTarget::build_subdir() const { return dashed(build_platform); }

std::vector<ForgeTarget> ForgeConfig::targets() const {
    std::vector<ForgeTarget> out;
    for (const auto& [target, build] : build_platform) {
        auto us = build.find('_');
        std::string build_os = build.substr(0, us), build_arch = us == std::string::npos ? "" : build.substr(us + 1);
        std::string key = build;
        if (build_arch == "64") {
            auto it = provider.find(build_os);
            if (it != provider.end() && !it->second.empty()) key = build_os;
        }
        auto it = provider.find(key);
        if (it == provider.end() || it->second.empty()) continue;
        ForgeTarget t;
        t.name = target;
        t.build_platform = build;
        t.providers = it->second;
        t.keep_noarch = std::find(noarch_platforms.begin(), noarch_platforms.end(), target) != noarch_platforms.end();
        if (auto ov = os_version.find(target); ov != os_version.end()) t.os_version = ov->second;
        out.push_back(std::move(t));
    }
    return out;
}

Result<ForgeConfig> read_forge_config(const stdfs::path& feedstock_dir) {
    ForgeConfig cfg;
    for (const auto& p : all_platforms()) cfg.build_platform[p] = p;
    cfg.provider = {{"linux_64", {"github_actions"}}, {"osx_64", {"azure"}}, {"win_64", {"github_actions"}}};

    stdfs::path path = feedstock_dir / "conda-forge.yml";
    std::error_code ec;
    if (!stdfs::exists(path, ec)) return cfg;
    std::string file = path.string();
    auto text = fs::read_file(path);
    if (!text) return unexpected(text.error());
    auto node = recipe::parse_yaml(*text, file);
    if (!node) return unexpected(node.error());
    if (node->IsNull()) return cfg;
    if (!node->IsMap()) return fail(SourceLoc{file, 1}, "conda-forge.yml must be a mapping");
    const YAML::Node& root = *node;
    auto map_of = [&](const char* key) -> Result<YAML::Node> {
        YAML::Node n = root[key];
        if (!n || n.IsNull()) return YAML::Node();
        if (!n.IsMap()) return fail(SourceLoc{file, n.Mark().line + 1}, std::string(key) + " must be a mapping");
        return n;
    };

    auto bp = map_of("build_platform");
    if (!bp) return unexpected(bp.error());
    for (auto it = bp->begin(); bp->IsMap() && it != bp->end(); ++it)
        cfg.build_platform[it->first.Scalar()] = it->second.IsScalar() ? it->second.Scalar() : it->first.Scalar();

    auto prov = map_of("provider");
    if (!prov) return unexpected(prov.error());
    for (auto it = prov->begin(); prov->IsMap() && it != prov->end(); ++it) {
        std::string plat = it->first.Scalar();
        auto vals = strings_of(it->second, file, "provider." + plat);
        if (!vals) return unexpected(vals.error());
        if (vals->size() == 1 && ((*vals)[0] == "default" || (*vals)[0] == "emulated"))
            *vals = {providers_of(plat).by_default};
        else if (vals->size() == 1 && (*vals)[0] == "native")
            *vals = {providers_of(plat).native};
        vals->erase(std::remove(vals->begin(), vals->end(), std::string()), vals->end());
        cfg.provider[plat] = *vals;
        cfg.provider_given = true;
    }

    auto osv = map_of("os_version");
    if (!osv) return unexpected(osv.error());
    for (auto it = osv->begin(); osv->IsMap() && it != osv->end(); ++it)
        if (it->second.IsScalar()) cfg.os_version[it->first.Scalar()] = it->second.Scalar();

    if (root["noarch_platforms"]) {
        auto np = strings_of(root["noarch_platforms"], file, "noarch_platforms");
        if (!np) return unexpected(np.error());
        cfg.noarch_platforms = *np;
    }
    auto docker = map_of("docker");
    if (!docker) return unexpected(docker.error());
    if (docker->IsMap() && (*docker)["fallback_image"] && (*docker)["fallback_image"].IsScalar())
        cfg.docker_fallback_image = (*docker)["fallback_image"].Scalar();
    auto gha = map_of("github_actions");
    if (!gha) return unexpected(gha.error());
    if (gha->IsMap() && (*gha)["self_hosted"] && (*gha)["self_hosted"].IsScalar())
        cfg.github_actions_self_hosted = (*gha)["self_hosted"].Scalar() == "true" || (*gha)["self_hosted"].Scalar() == "True";
    auto cb = map_of("conda_build");
    if (!cb) return unexpected(cb.error());
    for (auto it = cb->begin(); cb->IsMap() && it != cb->end(); ++it)
        if (it->second.IsScalar()) cfg.conda_build[it->first.Scalar()] = it->second.Scalar();
    if (root["recipe_dir"] && root["recipe_dir"].IsScalar()) cfg.recipe_dir = root["recipe_dir"].Scalar();
    if (root["conda_build_tool"] && root["conda_build_tool"].IsScalar())
        cfg.conda_build_tool = root["conda_build_tool"].Scalar();
    if (root["config_version"] && root["config_version"].IsScalar())
        cfg.config_version = root["config_version"].Scalar();
    return cfg;
}

}  // namespace sf::feedstock
