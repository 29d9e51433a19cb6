#include "cli/variant_args.hpp"

#include "core/error.hpp"

namespace sf::cli {

void VariantArgs::add_to(CLI::App* sub, WithPlatform with_platform) {
    sub->add_option("-m,--variant-config-files", files, "Extra variant config file (repeatable)");
    sub->add_option("-e,--exclusive-config-file", exclusive_files,
                    "Global pinning file, e.g. conda-forge's conda_build_config.yaml (repeatable; the recipe's "
                    "own config and -m files override it)");
    sub->add_flag("--strict", strict,
                  "Make what conda-build accepts with a warning (unknown selector names, repeated keys) an error");
    sub->add_option("--variant", overrides, "Override a variant key: KEY=VALUE[,VALUE...] (repeatable)");
    if (with_platform == WithPlatform::yes)
        sub->add_option("--platform,--target-platform", platform,
                        "Target platform (a subdir, not noarch), e.g. osx-arm64; default: the -m files' target_platform, else "
                        "this machine's");
}

variant::Selection VariantArgs::selection() const {
    auto sel = value_or_throw(variant::select(platform, {files.begin(), files.end()}, overrides,
                                              {exclusive_files.begin(), exclusive_files.end()}));
    sel.strict = strict;
    return sel;
}

}  // namespace sf::cli
