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

jinja::Context make_context(const variant::Variant& v, const jinja::Context& selector_ns,
                            const PackageInfo& pkg, const std::string& recipe_dir,
                            jinja::Undefinedness undefined);

// conda-build's compiler()/stdlib(): "<pkg>_<target_platform> <version>.*".
std::string compiler_spec(const std::string& language, const std::string& component,
                          const variant::Variant& v);

}  // namespace sf::render
