#include "types/json_fields.hpp"

namespace sf::types {

using json = nlohmann::json;

bool json_too_deep(std::string_view text, int max) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max) return true;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return false;
}

Result<json> parse_json_object(std::string_view text, std::string_view what) {
    if (json_too_deep(text))
        return fail(std::string(what) + ": JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep",
                    "the file is damaged or hostile; rebuild or re-download it");
    json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
        return fail(std::string(what) + ": not a valid JSON object", "the file is damaged; rebuild or re-download it");
    return j;
}

const json* JsonFields::find(const char* key) const {
    if (!obj_.is_object()) return nullptr;
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return nullptr;
    return &*it;
}

std::string JsonFields::hint() const {
    return hint_.empty() ? "the metadata is damaged; rebuild the package or re-index the channel" : hint_;
}

Unexpected<Error> JsonFields::wrong_type(const char* key, std::string_view expected) const {
    const json* v = find(key);
    std::string found = v ? v->type_name() : "missing";
    return fail(what_ + ": '" + key + "' must be " + std::string(expected) + ", not " + found,
                hint());
}

Result<std::string> JsonFields::string(const char* key, std::string fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_string()) return wrong_type(key, "a string");
    return v->get<std::string>();
}

Result<std::string> JsonFields::required_string(const char* key) const {
    const json* v = find(key);
    if (v && !v->is_string()) return wrong_type(key, "a string");
    if (!v || v->get_ref<const std::string&>().empty())
        return fail(what_ + ": missing or empty '" + key + "'", hint());
    return v->get<std::string>();
}

Result<std::optional<std::int64_t>> JsonFields::integer(const char* key) const {
    const json* v = find(key);
    if (!v) return std::optional<std::int64_t>{};
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
        return wrong_type(key, "an integer below 2^63");
    if (!v->is_number_integer()) return wrong_type(key, "an integer");
    return std::optional<std::int64_t>{v->get<std::int64_t>()};
}

Result<std::optional<std::uint64_t>> JsonFields::unsigned_integer(const char* key) const {
    const json* v = find(key);
    if (!v) return std::optional<std::uint64_t>{};
    if (!v->is_number_unsigned()) return wrong_type(key, "a non-negative integer");
    return std::optional<std::uint64_t>{v->get<std::uint64_t>()};
}

Result<std::optional<bool>> JsonFields::boolean(const char* key) const {
    const json* v = find(key);
    if (!v) return std::optional<bool>{};
    if (!v->is_boolean()) return wrong_type(key, "true or false");
    return std::optional<bool>{v->get<bool>()};
}

Result<std::vector<std::string>> JsonFields::strings(const char* key) const {
    std::vector<std::string> out;
    const json* v = find(key);
    if (!v) return out;
    if (!v->is_array()) return wrong_type(key, "a list of strings");
    for (const auto& e : *v) {
        if (!e.is_string())
            return fail(what_ + ": '" + key + "' must be a list of strings, but item " + std::to_string(out.size() + 1) +
                            " is a " + e.type_name(),
                        hint());
        out.push_back(e.get<std::string>());
    }
    return out;
}

}  // namespace sf::types
