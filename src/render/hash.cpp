#include "render/hash.hpp"

#include <fmt/format.h>

#include "util/hash.hpp"

namespace sf::render {
namespace {

void dump_string(const std::string& s, std::string& out) {
    out += '"';
    size_t i = 0;
    auto hex4 = [&](unsigned v) {
        out += fmt::format("\\u{:04x}", v);
    };
    while (i < s.size()) {
        // A run of characters json.dumps writes as they are, in one append.
        size_t run = i;
        while (run < s.size() && static_cast<unsigned char>(s[run]) >= 0x20 && static_cast<unsigned char>(s[run]) < 0x80 &&
               s[run] != '"' && s[run] != '\\')
            ++run;
        if (run > i) {
            out.append(s, i, run - i);
            i = run;
            continue;
        }
        unsigned char c = s[i];
        if (c < 0x80) {
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                case '\b': out += "\\b"; break;
                case '\f': out += "\\f"; break;
                default:
                    if (c < 0x20) hex4(c);
                    else out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        // Decode one UTF-8 sequence (input is validated UTF-8; be lenient anyway).
        unsigned cp = 0;
        size_t n = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
        cp = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : n == 4 ? (c & 0x07) : c;
        for (size_t k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        i += n;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            hex4(0xD800 + (cp >> 10));
            hex4(0xDC00 + (cp & 0x3FF));
        } else {
            hex4(cp);
        }
    }
    out += '"';
}

void dump(const nlohmann::json& v, std::string& out) {
    switch (v.type()) {
        case nlohmann::json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [k, x] : v.items()) {  // nlohmann objects are key-sorted
                if (!first) out += ", ";
                first = false;
                dump_string(k, out);
                out += ": ";
                dump(x, out);
            }
            out += '}';
            break;
        }
        case nlohmann::json::value_t::array: {
            out += '[';
            for (size_t i = 0; i < v.size(); ++i) {
                if (i) out += ", ";
                dump(v[i], out);
            }
            out += ']';
            break;
        }
        case nlohmann::json::value_t::string: dump_string(v.get_ref<const std::string&>(), out); break;
        case nlohmann::json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; break;
        case nlohmann::json::value_t::null: out += "null"; break;
        default: out += v.dump(); break;
    }
}

}  // namespace

std::string python_json_dumps(const nlohmann::json& value) {
    std::string out;
    dump(value, out);
    return out;
}

std::string pkg_hash(const nlohmann::json& hash_input) {
    if (hash_input.empty()) return "";
    return "h" + hash::sha1(python_json_dumps(hash_input)).substr(0, 7);
}

}  // namespace sf::render
