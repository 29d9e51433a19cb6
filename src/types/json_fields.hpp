#pragma once
// Typed reads of untrusted JSON (info/index.json, paths.json, repodata
// records, conda-meta records, metadata.json, --meta files): a field of the
// wrong type is an input Error naming the file and the field, never a
// nlohmann exception (which the CLI would report as an internal error).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace sf::types {

// Deeper than any conda metadata nests: such text is refused before it is
// parsed, because copying, printing and freeing a nlohmann value recurse
// once per level (100k levels overflow the stack).
constexpr int kMaxJsonDepth = 128;
// Whether `text` opens more than `max` arrays and objects inside each other
// (a linear scan that skips strings; malformed text is left to the parser).
bool json_too_deep(std::string_view text, int max = kMaxJsonDepth);

// `text` parsed as a JSON object; `what` names it in the error.
Result<nlohmann::json> parse_json_object(std::string_view text, std::string_view what);

// The fields of one JSON object. A field that is absent or null reads as
// the default; `what` names the object in errors ("x.conda: info/paths.json").
class JsonFields {
public:
    // `hint`: what to do about a wrong field; by default, that the metadata
    // is damaged and wants rebuilding.
    JsonFields(const nlohmann::json& obj, std::string what, std::string hint = {})
        : obj_(obj), what_(std::move(what)), hint_(std::move(hint)) {}

    Result<std::string> string(const char* key, std::string fallback = {}) const;
    // Present, a string and not empty.
    Result<std::string> required_string(const char* key) const;
    Result<std::optional<std::int64_t>> integer(const char* key) const;
    Result<std::optional<std::uint64_t>> unsigned_integer(const char* key) const;
    Result<std::optional<bool>> boolean(const char* key) const;
    Result<std::vector<std::string>> strings(const char* key) const;

    // "<what>: '<key>' must be <expected>, not <type>".
    Unexpected<Error> wrong_type(const char* key, std::string_view expected) const;
    const std::string& what() const { return what_; }

private:
    const nlohmann::json* find(const char* key) const;  // nullptr: absent or null
    std::string hint() const;
    const nlohmann::json& obj_;
    std::string what_, hint_;
};

}  // namespace sf::types
