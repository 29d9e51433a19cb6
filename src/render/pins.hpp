#pragma once
// Pins: the version arithmetic of pin_subpackage / pin_compatible, and their
// resolution once every output is rendered (how a pin crosses the rendered
// text is pin_text.hpp).
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "render/output.hpp"
#include "types/dependency.hpp"
#include "variant/config.hpp"
#include "variant/selection.hpp"

namespace sf::render {

// conda-build's apply_pin_expressions: ("2.13.0", "x.x.x.x.x.x", "x.x")
// -> ">=2.13.0,<2.14.0a0".
std::string apply_pin_expressions(const std::string& version, const std::string& min_pin,
                                  const std::string& max_pin);

// rattler-build's Pin::apply (recipe.yaml pins): the spec a pin gives against
// the version and build of the package it names. Bounds are `x.x` expressions
// (min_pin/max_pin: ">=1.2", "<1.3.0a0", as rattler's Version bumps them) or
// versions (lower_bound/upper_bound, taken as written); "" is no bound.
Result<std::string> apply_v1_pin(const types::Pin& p, const std::string& version, const std::string& build);

// conda-build's ensure_valid_spec: "gxx_linux-64 13" -> "gxx_linux-64 13.*".
std::string ensure_valid_spec(const std::string& spec);
std::string ensure_valid_spec_by_regex(const std::string& spec);  // the same by conda-build's regex, for tests

// Match specs parsed once per text: the same requirement lines recur in
// every output and variant of a recipe (a pure function of the text).
class SpecMemo {
public:
    const Result<types::Dependency>& parse(const std::string& text);

private:
    std::unordered_map<std::string, Result<types::Dependency>> parsed_;
};

// A rendered requirement list as typed dependencies: pin placeholders become
// types::Pin, everything else a match spec. Text that is no match spec is
// kept as written, as conda-build renders it, with a warning (an error under
// --strict). `what` names the list.
Result<std::vector<types::Dependency>> dependencies_of(const std::vector<std::string>& specs, const std::string& what,
                                                       Diagnostics& diag, SpecMemo& memo);

// conda-build's finalize: every pin becomes a match spec against the output
// it names (pin_subpackage) or the host's version (pin_compatible), and a
// bare run dependency named in pin_run_as_build gets bounds around the
// version the host pins.
void resolve_pins(std::vector<RenderedOutput>& outs, const std::map<std::string, variant::PinRunAsBuild>& run_as_build,
                  SpecMemo& memo);

// `build --nightly`: a spec naming one of `outs` at exactly its version as
// written (`pytorch-cpu 0.3.0`, from `{{ version }}`) names its nightly
// version, as the pins between outputs do.
void nightly_specs(const std::vector<RenderedOutput*>& outs, const variant::Selection& sel, SpecMemo& memo);

}  // namespace sf::render
