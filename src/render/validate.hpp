#pragma once
// Checks on what a recipe renders to, made as soon as it is rendered and
// before anything uses a name as a path: package names, versions and build
// strings follow types/identifiers.hpp's rules (CEP 26); build/number,
// outputs and requirements have the right shape. Internal to src/render/ (render and lint both see them).
#include <string>

#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "render/meta.hpp"
#include "render/output.hpp"

namespace sf::render {

// The rendered top-level dict of one variant.
Result<void> check_shape(const Meta& top, const std::string& file, Diagnostics& diag);
// One rendered output.
// `has_build_string`: false where none was computed (rerender's render).
Result<void> check_output(const RenderedOutput& o, const std::string& file, bool has_build_string = true);

}  // namespace sf::render
