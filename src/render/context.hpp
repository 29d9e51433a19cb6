#pragma once
// The Jinja context for rendering meta.yaml under one variant: selector
// names, variant values (as strings, like conda-build), PKG_* variables, and
// the conda functions compiler(), stdlib(), cdt(), pin_subpackage(),
// pin_compatible(), plus environ / os.environ.
#include <string>

#include "jinja/jinja.hpp"
#include "variant/config.hpp"

namespace sf::render {

struct PackageInfo {
    std::string name, version, build_number = "0";
};

// Everything that depends on the variant alone, layered over `selector_ns`
// (which must outlive it); PKG_NAME, PKG_VERSION and PKG_BUILDNUM are empty.
jinja::Context variant_context(const variant::Variant& v, const jinja::Context& selector_ns,
                               const std::string& recipe_dir);
// A layer over `variant_ctx` (which must outlive it) with the package's
// PKG_* values; one rendering's `{% set %}` lands here.
jinja::Context package_context(const jinja::Context& variant_ctx, const variant::Variant& v, const PackageInfo& pkg,
                               jinja::Undefinedness undefined);

// conda-build's compiler()/stdlib(): "<pkg>_<target_platform> <version>.*".
std::string compiler_spec(const std::string& language, const std::string& component,
                          const variant::Variant& v);

}  // namespace sf::render
