#pragma once
// How rattler-build types a YAML scalar it reads untyped, by the YAML library
// that read it. Two rules, both for plain (unquoted) scalars only; a quoted or
// block scalar is always a string:
// - marked_yaml (recipe.yaml's context, variants.yaml): the text is a bool
//   when it is true/True/TRUE/false/False/FALSE, an integer when Rust's
//   i64::from_str takes it, else a string as written (floats such as `3.10`,
//   `1e3` and `.inf`, `~`, `0x10`, `1_000`, `yes`).
// - serde_yaml 0.9 (a conda_build_config.yaml, after rattler-build's legacy
//   loader has quoted each `- <number>` line): YAML 1.2's core schema: `~`,
//   `null` and nothing are none, 0x/0o/0b integers, `.inf`/`.nan` floats.
#include <string_view>

#include "jinja/value.hpp"

namespace sf::render::v1 {

jinja::Value marked_yaml_scalar(std::string_view s);
jinja::Value serde_yaml_scalar(std::string_view s);

}  // namespace sf::render::v1
