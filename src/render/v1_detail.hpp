#pragma once
// Inside render/v1: one output evaluated for one combination, before its
// hash and build string are known.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "render/output.hpp"
#include "render/v1_eval.hpp"
#include "render/validate.hpp"
#include "variant/config.hpp"

namespace sf::render::v1 {

inline constexpr const char* kAlwaysUsed[] = {"target_platform", "channel_targets", "channel_sources"};

struct Staging {
    std::string name;
    nlohmann::json used = nlohmann::json::object();
    std::set<std::string> free_specs;
    Requirements requirements;
};

struct Evaluated {
    RenderedOutput out;                 // name, version, number, noarch, requirements, about, test, script
    std::optional<std::string> string_template;  // build.string, rendered once the hash is known
    const recipe::YamlNode* string_node = nullptr;
    IdentifierMarks marks;  // where name, version, number, string and env keys were written
    nlohmann::json used = nlohmann::json::object();  // typed, before exact pins
    std::vector<std::string> use_keys, ignore_keys;
    bool skip = false;
};

// "pybind11-abi" -> "pybind11_abi": rattler-build's NormalizedKey.
std::string normalized(std::string key);

// A variant value typed as rattler-build reads it from its file.
jinja::Value typed_value(const std::string& s, variant::ScalarTyping typing);
nlohmann::json to_json_value(const jinja::Value& v);

// Evaluates the staging outputs, then the package outputs of one combination
// (single-output recipes: the recipe itself). `variant`: the combination.
// `staging_keys` collects the keys the staging outputs use.
Result<std::vector<Evaluated>> evaluate_outputs(Env& env, const Vars& variant, std::set<std::string>& staging_keys);

// The `source:` list (top-level, or a staging output's) as typed sources.
Result<std::vector<types::Source>> eval_sources(Env& env, const recipe::YamlNode* source);

// The staging outputs' sources and requirements, for the staging build of
// one combination (empty for recipes without a staging output).
Result<TopVariant> eval_top(Env& env, const variant::Variant& variant);

// Keys the recipe can read anywhere, found without evaluating: names in
// expressions and conditions, compiler()/stdlib()/cdt() keys, free specs,
// use_keys and the always-used keys. A superset of what evaluation reads.
std::set<std::string> scan_used_keys(const recipe::V1Recipe& r);

}  // namespace sf::render::v1
