#include "script/cmake_cache.hpp"

#include <algorithm>

#include "util/fs.hpp"

namespace sf::script {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\r'; }

size_t first_non_ws(std::string_view s) {
    size_t p = 0;
    while (p < s.size() && (is_ws(s[p]) || s[p] == '\n')) ++p;
    return p;
}

bool is_help_comment(std::string_view raw) {
    size_t p = first_non_ws(raw);
    return raw.substr(p, 2) == "//";
}

// VALUE as CMake reads it: trailing blanks dropped, then one pair of single
// quotes (which CMake writes around values that end in blanks) removed.
std::string clean_value(std::string_view v) {
    while (!v.empty() && is_ws(v.back())) v.remove_suffix(1);
    if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
    return std::string(v);
}

// Parses the text of one entry line (leading blanks already skipped).
std::optional<CacheEntry> parse_entry(std::string_view s, bool& quoted) {
    CacheEntry e;
    quoted = false;
    if (!s.empty() && s.front() == '"') {
        size_t close = s.find('"', 1);
        if (close == std::string_view::npos) return std::nullopt;
        e.key = std::string(s.substr(1, close - 1));
        quoted = true;
        std::string_view rest = s.substr(close + 1);
        if (!rest.empty() && rest.front() == ':') {
            size_t eq = rest.find('=');
            if (eq == std::string_view::npos) return std::nullopt;
            e.type = std::string(rest.substr(1, eq - 1));
            e.value = clean_value(rest.substr(eq + 1));
        } else if (!rest.empty() && rest.front() == '=') {
            e.value = clean_value(rest.substr(1));
        } else {
            return std::nullopt;
        }
    } else {
        size_t eq = s.find('=');
        if (eq == std::string_view::npos) return std::nullopt;
        std::string_view head = s.substr(0, eq);
        size_t colon = head.find(':');
        if (colon != std::string_view::npos) {
            e.key = std::string(head.substr(0, colon));
            e.type = std::string(head.substr(colon + 1));
        } else {
            e.key = std::string(head);
        }
        e.value = clean_value(s.substr(eq + 1));
    }
    if (e.key.empty()) return std::nullopt;
    return e;
}

}  // namespace

Result<CMakeCache> CMakeCache::parse(std::string_view text, const std::string& file) {
    CMakeCache cache;
    size_t pos = 0;
    int lineno = 0;
    while (pos < text.size()) {
        ++lineno;
        size_t nl = text.find('\n', pos);
        Line line;
        std::string_view body;
        if (nl == std::string_view::npos) {
            body = text.substr(pos);
            pos = text.size();
        } else {
            body = text.substr(pos, nl - pos);
            pos = nl + 1;
            line.eol = "\n";
        }
        if (!body.empty() && body.back() == '\r' && !line.eol.empty()) {
            body.remove_suffix(1);
            line.eol = "\r\n";
        }
        line.raw = line.orig = std::string(body);
        size_t p = first_non_ws(body);
        if (p == body.size()) {
            line.kind = Kind::blank;
        } else if (body[p] == '#' || body.substr(p, 2) == "//") {
            line.kind = Kind::comment;
        } else {
            auto e = parse_entry(body.substr(p), line.quoted_key);
            if (!e) {
                return fail(SourceLoc{file, lineno}, "cannot parse cache line '" + std::string(body) + "'",
                            "expected KEY:TYPE=VALUE, a // or # comment, or a blank line");
            }
            line.kind = Kind::entry;
            line.entry = std::move(*e);
        }
        cache.lines_.push_back(std::move(line));
    }
    return cache;
}

Result<CMakeCache> CMakeCache::load(const std::filesystem::path& p) {
    auto text = fs::read_file(p);
    if (!text) {
        std::error_code ec;
        if (std::filesystem::exists(p, ec)) return unexpected(text.error());  // there but unreadable: say why
        return fail(text.error().loc, "cannot read CMake cache", "configure the build first (cmake -S . -B build)");
    }
    return parse(*text, p.string());
}

int CMakeCache::find_last(std::string_view key) const {
    for (size_t i = lines_.size(); i-- > 0;) {
        const Line& l = lines_[i];
        if (l.kind == Kind::entry && l.state != State::removed && l.entry.key == key) return static_cast<int>(i);
    }
    return -1;
}

std::optional<CacheEntry> CMakeCache::get(std::string_view key) const {
    int i = find_last(key);
    if (i < 0) return std::nullopt;
    return lines_[static_cast<size_t>(i)].entry;
}

std::vector<CacheEntry> CMakeCache::entries() const {
    std::vector<CacheEntry> out;
    for (const Line& l : lines_)
        if (l.kind == Kind::entry && l.state != State::removed) out.push_back(l.entry);
    return out;
}

std::string CMakeCache::format(const CacheEntry& e, bool quoted_key) {
    std::string s;
    bool quote = quoted_key || e.key.find_first_of(":=\"") != std::string::npos;
    s += quote ? "\"" + e.key + "\"" : e.key;
    if (!e.type.empty()) s += ":" + e.type;
    s += "=";
    // CMake protects trailing blanks with single quotes.
    if (!e.value.empty() && (e.value.back() == ' ' || e.value.back() == '\t')) s += "'" + e.value + "'";
    else s += e.value;
    return s;
}

void CMakeCache::set(std::string_view key, std::string_view type, std::string_view value) {
    CacheEntry e{std::string(key), std::string(type), std::string(value)};
    int found = find_last(key);
    if (found >= 0) {
        Line& l = lines_[static_cast<size_t>(found)];
        if (l.entry.type == e.type && l.entry.value == e.value) return;
        l.entry = std::move(e);
        l.raw = format(l.entry, l.quoted_key);
        if (l.state != State::added) l.state = l.raw == l.orig ? State::same : State::changed;
        return;
    }
    auto make = [](std::string text, Kind kind) {
        Line l;
        l.kind = kind;
        l.state = State::added;
        l.raw = std::move(text);
        l.eol = "\n";
        return l;
    };
    Line entry_line = make(format(e, false), Kind::entry);
    entry_line.entry = e;
    std::vector<Line> block{make("//Set by splitforge", Kind::comment), entry_line};

    size_t at = lines_.size();
    if (e.type != "INTERNAL") {
        // Before the "# INTERNAL cache entries" banner, after one blank line.
        for (size_t i = 0; i < lines_.size(); ++i) {
            if (lines_[i].kind == Kind::comment && lines_[i].raw.find("# INTERNAL cache entries") != std::string::npos) {
                size_t j = i;
                while (j > 0 && lines_[j - 1].kind == Kind::comment && lines_[j - 1].raw.rfind("#", 0) == 0) --j;
                size_t first_blank = j;
                while (first_blank > 0 && lines_[first_blank - 1].kind == Kind::blank) --first_blank;
                at = first_blank < j ? first_blank + 1 : j;
                block.push_back(make("", Kind::blank));
                break;
            }
        }
    }
    if (at == lines_.size() && !lines_.empty() && lines_.back().eol.empty()) lines_.back().eol = "\n";
    lines_.insert(lines_.begin() + static_cast<std::ptrdiff_t>(at), block.begin(), block.end());
}

void CMakeCache::remove_line(size_t i) {
    if (lines_[i].state == State::added) {
        lines_.erase(lines_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
        lines_[i].state = State::removed;
    }
}

bool CMakeCache::erase(std::string_view key) {
    bool any = false;
    for (int i; (i = find_last(key)) >= 0;) {
        any = true;
        // Help lines directly above the entry go with it.
        size_t idx = static_cast<size_t>(i);
        std::vector<size_t> doomed{idx};
        for (size_t j = idx; j-- > 0;) {
            if (lines_[j].state == State::removed) continue;
            if (lines_[j].kind != Kind::comment || !is_help_comment(lines_[j].raw)) break;
            doomed.push_back(j);
        }
        // Highest index first, so earlier indexes stay valid when added lines are erased.
        for (size_t d : doomed) remove_line(d);
    }
    if (any) {
        std::string k(key);
        for (const char* prop : {"-ADVANCED", "-STRINGS", "-MODIFIED"}) erase(k + prop);
    }
    return any;
}

size_t CMakeCache::erase_if(const std::function<bool(const CacheEntry&)>& pred) {
    std::vector<std::string> keys;
    for (const CacheEntry& e : entries())
        if (pred(e) && std::find(keys.begin(), keys.end(), e.key) == keys.end()) keys.push_back(e.key);
    size_t n = 0;
    for (const auto& k : keys) n += erase(k) ? 1 : 0;
    return n;
}

std::string CMakeCache::serialize() const {
    std::string out;
    for (const Line& l : lines_) {
        if (l.state == State::removed) continue;
        out += l.raw;
        out += l.eol;
    }
    return out;
}

bool CMakeCache::modified() const {
    return std::any_of(lines_.begin(), lines_.end(), [](const Line& l) { return l.state != State::same; });
}

std::string CMakeCache::diff(const std::string& label) const {
    std::string out;
    auto range = [](size_t start, size_t count) {
        // Unified convention: ",1" is implied; an empty side names the line before.
        if (count == 1) return std::to_string(start);
        return std::to_string(count == 0 ? start - 1 : start) + "," + std::to_string(count);
    };
    size_t old_no = 0, new_no = 0;  // lines consumed so far on each side
    for (size_t i = 0; i < lines_.size();) {
        if (lines_[i].state == State::same) {
            ++old_no, ++new_no, ++i;
            continue;
        }
        std::vector<std::string> minus, plus;
        size_t old_start = old_no + 1, new_start = new_no + 1;
        for (; i < lines_.size() && lines_[i].state != State::same; ++i) {
            const Line& l = lines_[i];
            if (l.state == State::removed || l.state == State::changed) minus.push_back(l.orig), ++old_no;
            if (l.state == State::added || l.state == State::changed) plus.push_back(l.raw), ++new_no;
        }
        if (out.empty()) out = "--- " + label + "\n+++ " + label + "\n";
        out += "@@ -" + range(old_start, minus.size()) + " +" + range(new_start, plus.size()) + " @@\n";
        for (const auto& m : minus) out += "-" + m + "\n";
        for (const auto& p : plus) out += "+" + p + "\n";
    }
    return out;
}

Result<CacheEntry> parse_assignment(std::string_view text) {
    bool quoted = false;
    auto e = parse_entry(text, quoted);
    if (!e || text.empty() || is_ws(text.front())) {
        return fail("cannot parse cache assignment '" + std::string(text) + "'",
                    "write KEY:TYPE=VALUE, e.g. USE_MAGMA:BOOL=ON");
    }
    return *e;
}

Result<std::string> edit_cache_file(const std::filesystem::path& p, const std::function<Result<void>(CMakeCache&)>& edit,
                                    DryRun dry_run) {
    auto cache = CMakeCache::load(p);
    if (!cache) return fail(cache.error().loc, cache.error().message, cache.error().hint);
    if (auto r = edit(*cache); !r) return fail(r.error().loc, r.error().message, r.error().hint);
    if (dry_run == DryRun::no && cache->modified()) {
        if (auto w = fs::write_file_atomic(p, cache->serialize()); !w)
            return fail(w.error().loc, w.error().message, w.error().hint);
    }
    return cache->diff(p.string());
}

}  // namespace sf::script
