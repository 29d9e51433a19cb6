#include "variant/used_vars.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "util/strings.hpp"
#include "variant/key_patterns.hpp"

namespace sf::variant {
namespace {

// `^\s+-`: an indented list item.
bool is_list_item(std::string_view line) {
    size_t i = 0;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    return i > 0 && i < line.size() && line[i] == '-';
}

std::string re_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') out += '\\';
        out += c;
    }
    return out;
}

// conda-build's re.match(r"(.*?)_(compiler|stdlib)(_version)?$", key):
// the language and the kind, for <lang>_compiler[_version] / <lang>_stdlib[_version].
std::optional<std::pair<std::string, std::string>> compiler_key_of(const std::string& key) {
    for (size_t i = 0; i < key.size(); ++i) {
        for (const char* kind : {"compiler", "stdlib"}) {
            std::string mark = std::string("_") + kind;
            if (key.compare(i, mark.size(), mark) != 0) continue;
            std::string rest = key.substr(i + mark.size());
            if (rest.empty() || rest == "_version") return std::make_pair(key.substr(0, i), std::string(kind));
        }
    }
    return std::nullopt;
}

}  // namespace

UsedVarScanner::UsedVarScanner(std::vector<std::string> keys, ScanRules rules) : keys_(std::move(keys)), rules_(rules) {
    is_special_.assign(keys_.size(), 0);
    by_index_.assign(keys_.size(), nullptr);
    for (const auto& k : keys_)
        for (char c : k)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') identifier_keys_ = false;
    for (std::uint32_t i = 0; i < keys_.size(); ++i) {
        const std::string& k = keys_[i];
        if (k.empty()) continue;
        by_first_[static_cast<unsigned char>(k[0])].push_back(i);
        if (auto m = compiler_key_of(k)) {
            special_.push_back(i);
            special_needle_.push_back(m->first);
            is_special_[i] = 1;
        } else if (rules_ == ScanRules::conda_build_26_7 && str::starts_with(k, "cdt_")) {
            special_.push_back(i);
            special_needle_.push_back("cdt(");
            is_special_[i] = 1;
        }
    }
}

const UsedVarScanner::Patterns& UsedVarScanner::patterns(std::uint32_t k) const {
    if (!by_index_[k]) by_index_[k] = &patterns(keys_[k]);
    return *by_index_[k];
}

const UsedVarScanner::Patterns& UsedVarScanner::patterns(const std::string& key) const {
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    Patterns p;
    std::string v = re_escape(key);
    std::string v_req;
    {
        auto parts = str::split(key, '_');
        for (size_t i = 0; i < parts.size(); ++i) v_req += (i ? "[-_]" : "") + re_escape(parts[i]);
    }
    // The alternatives of conda-build's one big regex, each with the
    // literals it cannot match without: a line is tried only against the
    // alternatives whose literals it has (the same answer, far fewer regexes).
    auto alt = [&](std::string re, std::vector<std::string> needs, bool list_item = false) {
        Alternative a;
        a.re.source = std::move(re);
        a.needs = std::move(needs);
        a.list_item = list_item;
        p.full.push_back(std::move(a));
    };
    p.key = key;
    p.rules_26_7 = rules_ == ScanRules::conda_build_26_7;
    if (auto m = compiler_key_of(key)) {
        p.compiler_lang = m->first;
        p.compiler_kind = m->second;
        // used by compiler('<lang>') or stdlib('<lang>'), whichever the key names
        alt(R"(\{\s*)" + m->second + R"(\([\'\"])" + re_escape(p.compiler_lang) + R"([\"\'][^\{]*?\})",
            {"{", "}", m->second + "("});
    }
    bool now = rules_ == ScanRules::conda_build_26_7;
    if (now && str::starts_with(key, "cdt_")) {
        p.cdt = true;
        alt(R"(\{\s*cdt\()", {"{", "cdt("});
    }
    std::string variant_re = R"(\{\s*(?:pin_[a-z]+\(\s*?['\"])?)" + v +
                             (now ? R"((?:[^_0-9a-zA-Z].*?)?\}\})" : R"([^_0-9a-zA-Z].*?\}\})");
    std::string selector_re = R"(^[^#\[]*?\#?\s\[[^\]]*?(?<![_\w\d]))" + v + R"([=\s<>!\]])";
    std::string conditional_re = R"((?:^|[^\{])\{%\s*(?:el)?if\s*.*)" + v + R"(\s*(?:[^%]*?)?%\})";
    std::string requirement_re = R"(^\s+\-\s+)" + v_req + R"(\s*(?:\s[\[#]|$))";
    alt(variant_re, {"{", "}}"});
    alt(requirement_re, {}, true);
    alt(conditional_re, {"{%", "if", "%}"});
    alt(R"((?:^|[^\{])\{%\s*for\s*.*\s*in\s*)" + v + R"((?![a-zA-Z_0-9])(?:[^%]*?)?%\})", {"{%", "for", "%}"});
    alt(R"((?:^|[^\{])\{%\s*set\s*.*\s*=\s*.*)" + std::string(now ? R"((?<![a-zA-Z_0-9]))" : "") + v +
            R"((?![a-zA-Z_0-9])(?:[^%]*?)?%\})",
        {"{%", "set", "=", "%}"});
    p.selectors.source = selector_re;
    p.shell = {R"((^[^$]*?\$\{?\s*)" + v + R"(\s*[\s|\}]))", PyRegex::multiline | PyRegex::dotall, nullptr};
    p.batch = {R"(\%)" + v + R"(\%)", PyRegex::multiline | PyRegex::dotall, nullptr};
    return cache_.emplace(key, std::move(p)).first->second;
}

bool UsedVarScanner::line_uses(const std::string& key, std::string_view line, Scan scan) const {
    const Patterns& p = patterns(key);
    bool compiler = !p.compiler_lang.empty() && scan == Scan::full;
    if (p.cdt && scan == Scan::full) {
        if (line.find(key) == std::string_view::npos && line.find("cdt(") == std::string_view::npos) return false;
    } else if (compiler) {
        if (line.find(key) == std::string_view::npos && line.find(p.compiler_lang) == std::string_view::npos)
            return false;
    } else {
        std::string dashless = str::replace_all(std::string(line), "-", "_");
        if (dashless.find(key) == std::string::npos) return false;
    }
    return could_match(line, scan) && matches(p, line, scan, str::is_plain_ascii(line));
}

// `plain`: str::is_plain_ascii(line), which the hand matchers need.
bool UsedVarScanner::matches(const Patterns& p, std::string_view line, Scan scan, bool plain) {
    if (!plain) return regex_matches(p, line, scan);
    namespace kp = key_patterns;
    if (scan == Scan::selectors_only) return kp::selector(line, p.key);
    if (!p.compiler_lang.empty() && kp::compiler_call(line, p.compiler_kind, p.compiler_lang)) return true;
    if (p.cdt && kp::cdt_call(line)) return true;
    return kp::jinja_ref(line, p.key, p.rules_26_7) || (is_list_item(line) && kp::requirement(line, p.key)) ||
           kp::if_tag(line, p.key) || kp::for_tag(line, p.key) || kp::set_tag(line, p.key, p.rules_26_7);
}

bool UsedVarScanner::matches_by_hand(const std::string& key, std::string_view line, Scan scan) const {
    return str::is_plain_ascii(line) && matches(patterns(key), line, scan, true);
}

bool UsedVarScanner::matches_by_regex(const std::string& key, std::string_view line, Scan scan) const {
    return regex_matches(patterns(key), line, scan);
}

bool UsedVarScanner::regex_matches(const Patterns& p, std::string_view line, Scan scan) {
    if (scan == Scan::selectors_only) return p.selectors->matches_anywhere(line);
    for (const auto& a : p.full) {
        if (a.list_item && !is_list_item(line)) continue;
        bool has_all = true;
        for (const auto& n : a.needs) has_all = has_all && line.find(n) != std::string_view::npos;
        if (has_all && a.re->matches_anywhere(line)) return true;
    }
    return false;
}

bool UsedVarScanner::could_match(std::string_view line, Scan scan) {
    // Every pattern needs a `[` (selectors), or a `{` or a "  - " list item
    // (the full scan): most lines are neither, and skip the regex.
    if (scan == Scan::selectors_only) return line.find('[') != std::string_view::npos;
    return line.find('{') != std::string_view::npos || is_list_item(line);
}

const std::vector<std::uint32_t>& UsedVarScanner::line_keys(std::string_view line, Scan scan) const {
    auto& memo = line_used_[scan == Scan::full ? 1 : 0];
    if (auto it = memo.find(line); it != memo.end()) return it->second;
    std::vector<std::uint32_t> used;
    if (could_match(line, scan)) {
        bool full = scan == Scan::full;
        // Candidates: the keys the line spells, reading '-' as '_'.
        auto dashless = [](char c) { return c == '-' ? '_' : c; };
        std::vector<std::uint32_t> cands;
        const size_t n = line.size();
        for (size_t i = 0; i < n; ++i)
            for (std::uint32_t k : by_first_[static_cast<unsigned char>(dashless(line[i]))]) {
                const std::string& key = keys_[k];
                if (key.size() > n - i || (full && is_special_[k])) continue;
                size_t j = 1;
                while (j < key.size() && dashless(line[i + j]) == key[j]) ++j;
                if (j == key.size()) cands.push_back(k);
            }
        if (full)
            for (size_t s = 0; s < special_.size(); ++s)
                if (line.find(keys_[special_[s]]) != std::string_view::npos ||
                    line.find(special_needle_[s]) != std::string_view::npos)
                    cands.push_back(special_[s]);
        std::sort(cands.begin(), cands.end());
        cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
        bool plain = !cands.empty() && str::is_plain_ascii(line);
        for (std::uint32_t k : cands)
            if (matches(patterns(k), line, scan, plain)) used.push_back(k);
    }
    return memo.emplace(std::string(line), std::move(used)).first->second;
}

std::set<std::string> UsedVarScanner::in_text(std::string_view text, Scan scan) const {
    auto& memo = memo_[scan == Scan::full ? 1 : 0];
    if (auto it = memo.find(text); it != memo.end()) return it->second;
    // Output texts, requirement texts and the whole recipe share most of
    // their lines: each line is judged once per scanner.
    std::vector<char> hit(keys_.size(), 0);
    for (std::string_view line : str::split_line_views(text))
        for (std::uint32_t k : line_keys(line, scan)) hit[k] = 1;
    std::set<std::string> used;
    for (size_t k = 0; k < keys_.size(); ++k)
        if (hit[k]) used.insert(keys_[k]);
    // A C/C++ compiler brings the macOS SDK along, as in conda-build.
    if ((used.count("c_compiler") || used.count("cxx_compiler") || used.count("c_stdlib")) &&
        std::find(keys_.begin(), keys_.end(), "CONDA_BUILD_SYSROOT") != keys_.end())
        used.insert("CONDA_BUILD_SYSROOT");
    memo.emplace(std::string(text), used);
    return used;
}

int UsedVarScanner::first_use_in_text(const std::string& key, std::string_view text, Scan scan) const {
    auto lines = str::split_lines(text);
    for (size_t i = 0; i < lines.size(); ++i)
        if (line_uses(key, lines[i], scan)) return static_cast<int>(i) + 1;
    return 0;
}

std::set<std::string> UsedVarScanner::in_shell_script(std::string_view text) const {
    // Every output of every variant reads the same few scripts.
    if (auto hit = script_memo_[0].find(text); hit != script_memo_[0].end()) return hit->second;
    auto memo = script_memo_[0].try_emplace(std::string(text)).first;
    // conda-build's `^[^$]*?\$\{?\s*KEY\s*[\s|\}]` (multiline) can only match
    // at the first `$` of a line: read the name there once per line, then
    // look keys up, instead of one regex per key over the whole script.
    std::set<std::string> names;  // "name" followed by whitespace, '|' or '}'
    if (identifier_keys_) {
        auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
        size_t line = 0;
        while (line < text.size()) {
            size_t eol = text.find('\n', line);
            if (eol == std::string_view::npos) eol = text.size();
            size_t d = text.find('$', line);
            if (d != std::string_view::npos && d < eol) {
                size_t q = d + 1;
                if (q < text.size() && text[q] == '{') ++q;
                while (q < text.size() && str::is_py_space(text[q])) ++q;
                size_t w = q;
                while (q < text.size() && is_word(text[q])) ++q;
                // `\s*[\s|}]` after the name: its next character is one of those.
                bool ends = q < text.size() && (str::is_py_space(text[q]) || text[q] == '|' || text[q] == '}');
                if (q > w && ends) names.emplace(text.substr(w, q - w));
            }
            line = eol + 1;
        }
    }
    std::set<std::string> used;
    for (const auto& key : keys_) {
        if (identifier_keys_) {
            if (names.count(key)) used.insert(key);  // a name read from the text: it is in the text
        } else if (text.find(key) != std::string_view::npos && patterns(key).shell->matches_anywhere(text)) {
            used.insert(key);
        }
    }
    memo->second = used;
    return used;
}

std::set<std::string> UsedVarScanner::in_batch_script(std::string_view text) const {
    if (auto hit = script_memo_[1].find(text); hit != script_memo_[1].end()) return hit->second;
    auto memo = script_memo_[1].try_emplace(std::string(text)).first;
    std::set<std::string> used;
    for (const auto& key : keys_)
        if (text.find(key) != std::string_view::npos && patterns(key).batch->matches_anywhere(text))
            used.insert(key);
    memo->second = used;
    return used;
}

int UsedVarScanner::first_use_in_script(const std::string& key, std::string_view text) const {
    auto m = patterns(key).shell->search(text);
    if (!m) m = patterns(key).batch->search(text);
    if (!m) return 0;
    size_t at = text.find(key, m->position);
    if (at == std::string_view::npos) at = m->position;
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

}  // namespace sf::variant
