#include <iostream>

#include "cli/commands.hpp"
#include "render/format.hpp"
#include "render/render.hpp"

namespace sf::cli {

void register_render(CLI::App& app, Action& action) {
    struct Opts {
        std::string recipe;
        std::vector<std::string> variant_files;
        std::vector<std::string> overrides;
        std::string output = "yaml";
        std::string platform;  // default: from -m target_platform, else linux-64
    };
    auto o = std::make_shared<Opts>();
    auto* sub = app.add_subcommand("render", "Print every package a recipe produces, with exact build strings");
    sub->add_option("recipe", o->recipe, "Recipe directory (holds meta.yaml)")->required();
    sub->add_option("-m,--variant-config-files", o->variant_files, "Extra variant config file (repeatable)");
    sub->add_option("--variant", o->overrides, "Override a variant key: KEY=VALUE[,VALUE...]");
    sub->add_option("--output", o->output, "Output format")->check(CLI::IsMember({"yaml", "json", "builds"}));
    sub->add_option("--platform", o->platform, "Target platform (subdir), e.g. linux-64, osx-arm64");
    sub->callback([o, &action] {
        action = [o] {
            render::RenderOptions ro;
            for (const auto& f : o->variant_files) ro.variant_files.emplace_back(f);
            ro.subdir = !o->platform.empty() ? o->platform
                                             : render::platform_from_variant_files(ro.variant_files).value_or("linux-64");
            for (const auto& kv : o->overrides) {
                auto eq = kv.find('=');
                if (eq == std::string::npos)
                    throw Failure(Error{{}, "--variant expects KEY=VALUE, got '" + kv + "'", {}});
                ro.overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
            }
            auto rr = value_or_throw(render::render_dir(o->recipe, ro));
            if (o->output == "json")
                std::cout << render::to_json(rr).dump(2) << "\n";
            else if (o->output == "builds")
                std::cout << render::builds_tsv(rr);
            else
                std::cout << render::to_yaml(rr);
            return 0;
        };
    });
}

}  // namespace sf::cli
