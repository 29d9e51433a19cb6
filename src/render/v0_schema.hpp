#pragma once
// The one table of meta.yaml's keys, as conda-build 24.11 knows them
// (conda_build/metadata.py's FIELDS: the sections, their keys, and the keys
// of an output), and the walk that finds the keys a recipe writes outside
// it. conda-build reads past such a key without a word (`numbr:` renders
// with the default build number); render warns (`--strict`: an error) and
// lint reports it, each with a did-you-mean [v0-unknown-key].
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "render/meta.hpp"

namespace sf::render {

// One key on the way to an unknown key, to find its line: `outputs:`, then
// `- name: libfoo`, then `test:`, then the key.
struct Step {
    std::string key;
    std::string value;  // "" for any value
};

struct UnknownKey {
    std::string key;      // "numbr"
    std::string section;  // "build", "output 'libfoo' test", "" for the top level
    std::vector<Step> path;  // from the top level to the key itself
    std::string near;     // the likely key meant, or ""
    std::vector<std::string> valid;  // the section's keys, in FIELDS' order
};

// Every key of one rendered meta.yaml (a variant's top-level dict) that its
// section does not name, in document order. `extra` and the values of
// free-form keys (run_exports, script_env, ...) are not looked into.
std::vector<UnknownKey> unknown_keys(const Meta& top);

// The keys of a section ("build", "test", "outputs", ... or "" for the top
// level); empty for a section the table does not have.
std::vector<std::string_view> v0_section_keys(std::string_view section);

// unknown_keys as warnings in `diag` ("meta.yaml:7: unknown key 'numbr' in
// build (did you mean 'number'? ...)"), each line found in the recipe's
// `text`; under --strict the first is the error returned.
Result<void> check_known_keys(const Meta& top, const std::string& text, const std::string& file, Diagnostics& diag);

}  // namespace sf::render
