#pragma once
// Printing a RenderedRecipe for people (YAML documents) and tools (JSON).
#include <string>

#include <nlohmann/json.hpp>

#include "render/output.hpp"

namespace sf::render {

nlohmann::ordered_json to_json(const RenderedOutput& o);
nlohmann::ordered_json to_json(const RenderedRecipe& r);
// One output as a YAML document (package, build, requirements, test).
std::string output_yaml(const RenderedOutput& o);
// One YAML document per output, each headed by a comment with its variant.
std::string to_yaml(const RenderedRecipe& r);
// "name<TAB>version<TAB>build", sorted: the golden .builds.tsv shape.
std::string builds_tsv(const RenderedRecipe& r);

}  // namespace sf::render

namespace sf::render {
// `splitforge variants`: the staging matrix, the keys each output uses and,
// for every used key, where it is first used (file:line).
// How much of a long list the report prints.
enum class ReportDetail { summary, full };
// The keys of the matrix the recipe does not use.
std::vector<std::string> unused_keys(const RenderedRecipe& r);
std::string variants_report(const RenderedRecipe& r, ReportDetail detail = ReportDetail::summary);
nlohmann::ordered_json variants_json(const RenderedRecipe& r);
}  // namespace sf::render
