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
// A build string already judged by check_computed_build_string (the output
// is unbuildable for it) is not judged again.
Result<void> check_output(const RenderedOutput& o, const std::string& file, bool has_build_string = true);
// A build string conda-build computed (no build/string): conda-build checks
// the characters of a manual one only (check_bad_chrs), so a host spec
// `python >=3.14.1` makes `py>=314h..._0`. Render keeps it with a warning
// (an error under --strict) and marks the output unbuildable, since no
// package may carry it; '/', '\\', '..' and control characters stay errors.
Result<void> check_computed_build_string(RenderedOutput& o, const std::string& file, Diagnostics& diag);

}  // namespace sf::render
