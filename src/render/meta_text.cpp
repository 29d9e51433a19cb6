// conda-build's recipe-text extractions (metadata.py get_recipe_text,
// get_output_text and the section regexes), matched by hand where the
// pattern is one of conda-build's and memoized in TextCache across variants.
#include <algorithm>
#include <cctype>

#include "render/meta.hpp"
#include "render/meta_detail.hpp"
#include "util/pyregex.hpp"
#include "util/strings.hpp"

namespace sf::render {

using detail::as_string;
using detail::section;

const PyRegex& TextCache::regex(const std::string& pattern, unsigned flags) {
    std::string key = std::to_string(flags) + '\x1f' + pattern;
    auto it = regexes_.find(key);
    if (it == regexes_.end()) it = regexes_.emplace(key, PyRegex(pattern, flags)).first;
    return it->second;
}

namespace {

// A line-anchored piece of a section pattern: `^lit`, `^\s*lit`, or
// `^\s*-\s+name:`.
struct Anchor {
    bool ws = false;    // `\s*` after `^` (it may span blank lines)
    bool dash = false;  // `-\s+` before the literal
    std::string_view lit;
};
struct SectionPattern {
    std::string_view regex;  // what this matcher computes, as Python wrote it
    Anchor start;
    std::vector<Anchor> stops;  // `\Z` is always a stop
};

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool line_start(std::string_view t, size_t p) { return p == 0 || (p <= t.size() && t[p - 1] == '\n'); }
size_t next_line(std::string_view t, size_t p) {
    size_t nl = t.find('\n', p);
    return nl == std::string_view::npos ? t.size() : nl + 1;
}


size_t anchor_end(std::string_view t, size_t p, const Anchor& a) {
    if (a.ws)
        while (p < t.size() && str::is_py_space(t[p])) ++p;
    if (a.dash) {
        if (p >= t.size() || t[p] != '-') return std::string_view::npos;
        size_t q = ++p;
        while (p < t.size() && str::is_py_space(t[p])) ++p;
        if (p == q) return std::string_view::npos;
    }
    return t.compare(p, a.lit.size(), a.lit) == 0 ? p + a.lit.size() : std::string_view::npos;
}

// conda-build's section regexes (multiline, dotall): `(START.*?)(?=STOP|...|\Z)`.
const std::vector<SectionPattern>& section_patterns() {
    static const std::vector<SectionPattern> patterns = {
        {R"((^outputs:.*?)(?=^test:|^extra:|^about:|\Z))",
         {false, false, "outputs:"},
         {{false, false, "test:"}, {false, false, "extra:"}, {false, false, "about:"}}},
        {R"((^requirements:.*?)(?=^test:|^extra:|^about:|^outputs:|\Z))",
         {false, false, "requirements:"},
         {{false, false, "test:"}, {false, false, "extra:"}, {false, false, "about:"}, {false, false, "outputs:"}}},
        {R"((^\s*requirements:.*?)(?=^\s*test:|^\s*extra:|^\s*about:|^\s*-\s+name:|^outputs:|\Z))",
         {true, false, "requirements:"},
         {{true, false, "test:"}, {true, false, "extra:"}, {true, false, "about:"}, {true, true, "name:"},
          {false, false, "outputs:"}}},
        {R"((^.*?)(?=^requirements:|^test:|^extra:|^about:|^outputs:|\Z))",
         {false, false, ""},
         {{false, false, "requirements:"}, {false, false, "test:"}, {false, false, "extra:"}, {false, false, "about:"},
          {false, false, "outputs:"}}},
    };
    return patterns;
}

// The first group, or nullopt when START never matches.
std::optional<std::string> match_section(std::string_view t, const SectionPattern& sp) {
    size_t from = 0, body = 0;
    while ((body = anchor_end(t, from, sp.start)) == std::string_view::npos) {
        if (from >= t.size()) return std::nullopt;
        from = next_line(t, from);
    }
    size_t q = line_start(t, body) ? body : next_line(t, body);
    for (; q < t.size(); q = next_line(t, q))
        if (std::any_of(sp.stops.begin(), sp.stops.end(),
                        [&](const Anchor& a) { return anchor_end(t, q, a) != std::string_view::npos; }))
            break;
    return std::string(t.substr(from, q - from));
}

// `^\ +-\ +(?:name|type)` at p, with the colon when `colon`: the end of it, or npos.
size_t item_head_end(std::string_view t, size_t p, bool colon = true) {
    size_t i = p;
    while (i < t.size() && t[i] == ' ') ++i;
    if (i == p || i >= t.size() || t[i] != '-') return std::string_view::npos;
    size_t j = ++i;
    while (i < t.size() && t[i] == ' ') ++i;
    if (i == j) return std::string_view::npos;
    for (std::string_view w : {"name:", "type:"}) {
        if (!colon) w.remove_suffix(1);
        if (t.compare(i, w.size(), w) == 0) return i + w.size();
    }
    return std::string_view::npos;
}

}  // namespace

// output_re's findall: `^\ +-\ +(?:name|type):.+?(?=^\w|\Z|^\ +-\ +(?:name|type))`
// (the stop needs no colon: `- type %X%` in a script ends an output's text).
std::vector<std::string> output_blocks(std::string_view t) {
    std::vector<std::string> out;
    for (size_t p = 0; p < t.size();) {  // p is always a line start
        size_t body = item_head_end(t, p);
        if (body == std::string_view::npos || body >= t.size()) {  // `.+?` needs a character
            p = next_line(t, p);
            continue;
        }
        size_t q = line_start(t, body + 1) ? body + 1 : next_line(t, body + 1);
        while (q < t.size() && !is_word(t[q]) && item_head_end(t, q, false) == std::string_view::npos)
            q = next_line(t, q);
        out.emplace_back(t.substr(p, q - p));
        p = q;
    }
    return out;
}

// `requirements:.+?(?=^\w|\Z|^\s+-\s(?=name|type))`'s whole match, or "".
std::string requirements_block(std::string_view t) {
    auto stops_at = [&](size_t q) {  // q is a line start
        if (is_word(t[q])) return true;
        size_t i = q;
        while (i < t.size() && str::is_py_space(t[i])) ++i;
        return i > q && i + 1 < t.size() && t[i] == '-' && str::is_py_space(t[i + 1]) &&
               (t.compare(i + 2, 4, "name") == 0 || t.compare(i + 2, 4, "type") == 0);
    };
    for (size_t at = t.find("requirements:"); at != std::string_view::npos; at = t.find("requirements:", at + 1)) {
        size_t body = at + std::string_view("requirements:").size();
        if (body >= t.size()) continue;  // `.+?` needs a character
        size_t q = line_start(t, body + 1) ? body + 1 : next_line(t, body + 1);
        while (q < t.size() && !stops_at(q)) q = next_line(t, q);
        return std::string(t.substr(at, q - at));
    }
    return "";
}

std::optional<std::string> section_fast_path(std::string_view pattern, std::string_view text) {
    for (const auto& sp : section_patterns())
        if (sp.regex == pattern) return match_section(text, sp).value_or("");
    return std::nullopt;
}

const std::string& TextCache::extract(const char* pattern, const std::string& text, const std::string& text_id) {
    std::string key = std::string(pattern) + '\x1f' + text_id;
    if (auto it = extracts_.find(key); it != extracts_.end()) return it->second;
    if (auto fast = section_fast_path(pattern, text)) return extracts_.emplace(std::move(key), std::move(*fast)).first->second;
    auto m = regex(pattern, PyRegex::multiline | PyRegex::dotall).search(text);
    return extracts_.emplace(std::move(key), m && m->group(1) ? *m->group(1) : std::string()).first->second;
}

namespace {
std::string text_key(const char* pattern, bool apply_selectors, const std::string& outcome_key) {
    return std::string(pattern ? pattern : "") + '\x1f' + (apply_selectors ? outcome_key : "raw");
}
void rstrip(std::string& s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
}
}  // namespace

void VariantText::seed_selected_text(std::string text) const {
    rstrip(text);
    cache->memo.try_emplace(text_key(nullptr, true, outcome_key), std::move(text));
}

const std::string& VariantText::recipe_text(const char* pattern, bool apply_selectors) const {
    std::string key = text_key(pattern, apply_selectors, outcome_key);
    if (auto it = cache->memo.find(key); it != cache->memo.end()) return it->second;
    const std::string& source = pattern ? cache->extract(pattern, raw->text, "\x1eraw") : raw->text;
    std::optional<recipe::Selected> sel;
    if (apply_selectors) {
        const std::vector<recipe::SelectorLine>* lines = &raw->lines;
        if (pattern) {
            auto split = cache->split_lines.find(pattern);
            if (split == cache->split_lines.end()) split = cache->split_lines.emplace(pattern, recipe::split_selectors(source)).first;
            lines = &split->second;
        }
        if (auto s = recipe::apply_selectors(*lines, *ns, raw->meta_file, &cache->selectors, &outcomes, diag)) sel = std::move(*s);
    }
    std::string text = sel ? std::move(sel->text) : source;
    rstrip(text);
    return cache->memo.emplace(std::move(key), std::move(text)).first->second;
}

const std::string& VariantText::outputs_text(bool apply_selectors) const {
    return recipe_text(R"((^outputs:.*?)(?=^test:|^extra:|^about:|\Z))", apply_selectors);
}

const std::string& VariantText::single_output_text(const std::string& name, bool apply_selectors) const {
    std::string top_name = as_string(section(meta, "package").value("name", Meta("")));
    std::vector<std::string> names;
    if (meta.contains("outputs") && meta["outputs"].is_array() && !meta["outputs"].empty()) {
        for (const auto& o : meta["outputs"])
            names.push_back(o.is_object() && o.contains("name") ? as_string(o["name"]) : top_name);
    } else {
        names.push_back(top_name);
    }
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return cache->memo.try_emplace("\x1eunknown output\x1f" + name, name).first->second;
    size_t idx = static_cast<size_t>(it - names.begin());
    auto key_of = [&](size_t i) {
        return "\x1eoutput\x1f" + std::to_string(i) + '\x1f' + (apply_selectors ? outcome_key : "raw");
    };
    if (auto m = cache->memo.find(key_of(idx)); m != cache->memo.end()) return m->second;
    // Split the outputs section once per selection; every output's text is memoized.
    auto matches = output_blocks(outputs_text(apply_selectors));
    for (size_t i = 0; i < matches.size(); ++i) cache->memo.emplace(key_of(i), std::move(matches[i]));
    return cache->memo.try_emplace(key_of(idx)).first->second;
}

}  // namespace sf::render
