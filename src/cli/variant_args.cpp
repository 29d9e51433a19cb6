#include "cli/variant_args.hpp"

#include "core/error.hpp"

namespace sf::cli {

void VariantArgs::add_to(CLI::App* sub, bool with_platform) {
    sub->add_option("-m,--variant-config-files", files, "Extra variant config file (repeatable)");
    sub->add_option("--variant", overrides, "Override a variant key: KEY=VALUE[,VALUE...] (repeatable)");
    if (with_platform)
        sub->add_option("--platform", platform,
                        "Target platform (subdir), e.g. osx-arm64; default: the -m files' target_platform, else linux-64");
}

std::vector<std::filesystem::path> VariantArgs::file_paths() const { return {files.begin(), files.end()}; }

std::vector<std::pair<std::string, std::string>> VariantArgs::parsed_overrides() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& kv : overrides) {
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw Failure(Error{{}, "--variant " + kv + ": expected KEY=VALUE", "e.g. --variant python=3.12"});
        out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    return out;
}

std::string VariantArgs::subdir() const {
    if (!platform.empty()) return platform;
    return render::platform_from_variant_files(file_paths()).value_or("linux-64");
}

render::RenderOptions VariantArgs::render_options() const {
    render::RenderOptions ro;
    ro.variant_files = file_paths();
    ro.overrides = parsed_overrides();
    ro.subdir = subdir();
    return ro;
}

}  // namespace sf::cli
