#pragma once
// How rattler-build's minijinja (2.24, the version its Cargo.lock pins)
// turns values into text, where Jinja2 would use Python's str():
//   display: `${{ x }}` inside text, `~`. Booleans and none print as
//            Jinja2 prints them (True, False, None; minijinja 2.22 changed
//            this from true/false/none), floats as Rust prints them plus
//            ".0" when integral (1.0, 0.0001, 1e20 as 100000000000000000000.0),
//            NaN, inf and -inf; lists and maps as their debug form.
//   debug:   an item inside a list or map: strings in double quotes with
//            Rust's escapes ("a\"b"), floats in Rust's debug form (1e16,
//            1e-5), undefined as `undefined`; `[1, "a"]`, `{"k": none}`.
// Text longer than jinja's string limit is cut just past it, so the
// caller's own length check fails it.
#include <string>

#include "jinja/value.hpp"

namespace sf::jinja::minijinja {

std::string display(const Value& v);
std::string debug(const Value& v);

}  // namespace sf::jinja::minijinja
