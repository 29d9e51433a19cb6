#include "types/repodata_sparse.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

#include "types/json_fields.hpp"

namespace sf::types {
namespace {

using json = nlohmann::json;

// A validating pass over JSON text that keeps no values, only where they
// are. It refuses what nlohmann's parser refuses, so that a file read
// sparsely is a file that RepoData::parse would read.
class Scanner {
public:
    explicit Scanner(std::string_view t) : t_(t) {
        if (t_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // nlohmann skips a UTF-8 BOM
    }

    bool ok() const { return ok_; }
    std::size_t pos() const { return i_; }
    std::size_t left() const { return t_.size() - i_; }
    std::string_view from(std::size_t start) const { return t_.substr(start, i_ - start); }

    void ws() {
        while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
    }
    bool at(char c) {
        ws();
        return ok_ && i_ < t_.size() && t_[i_] == c;
    }
    bool eat(char c) {
        if (!at(c)) return false;
        ++i_;
        return true;
    }
    bool expect(char c) { return eat(c) || fail(); }
    bool at_end() {
        ws();
        return i_ == t_.size();
    }
    bool fail() { return ok_ = false; }

    // A string token: its text with the quotes (escapes kept).
    std::string_view string();
    void value();
    bool enter() {
        return ++depth_ <= kMaxJsonDepth || fail();
    }
    void leave() { --depth_; }
    // An object at the cursor: `member(key)` is called after each `"key":`
    // and reads the value.
    template <class F>
    void object(F&& member) {
        if (!eat('{')) return (void)fail();
        if (!enter()) return;
        if (!eat('}')) {
            do {
                auto key = string();
                expect(':');
                if (!ok_) break;
                member(key);
            } while (ok_ && eat(','));
            expect('}');
        }
        leave();
    }

private:
    void number();
    void literal(std::string_view word);
    bool escape();
    bool utf8();
    unsigned hex4();

    std::string_view t_;
    std::size_t i_ = 0;
    int depth_ = 0;
    bool ok_ = true;
};

unsigned Scanner::hex4() {
    if (i_ + 4 > t_.size()) return ~0u;
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
        char c = t_[i_++];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= unsigned(c - '0');
        else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
        else return ~0u;
    }
    return v;
}

// After the backslash. A high surrogate must be followed by a low one.
bool Scanner::escape() {
    if (i_ >= t_.size()) return false;
    char c = t_[i_++];
    if (std::strchr("\"\\/bfnrt", c) && c) return true;
    if (c != 'u') return false;
    unsigned u = hex4();
    if (u == ~0u || (u >= 0xDC00 && u <= 0xDFFF)) return false;
    if (u < 0xD800 || u > 0xDBFF) return true;
    if (i_ + 2 > t_.size() || t_[i_] != '\\' || t_[i_ + 1] != 'u') return false;
    i_ += 2;
    unsigned lo = hex4();
    return lo >= 0xDC00 && lo <= 0xDFFF;
}

// One multi-byte UTF-8 sequence at i_: no overlongs, surrogates or past U+10FFFF.
bool Scanner::utf8() {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(t_[k]); };
    unsigned c = b(i_);
    int n = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
    if (n < 0 || i_ + n >= t_.size()) return false;
    unsigned lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    if (b(i_ + 1) < lo || b(i_ + 1) > hi) return false;
    for (int k = 2; k <= n; ++k)
        if (b(i_ + k) < 0x80 || b(i_ + k) > 0xBF) return false;
    i_ += n + 1;
    return true;
}

std::string_view Scanner::string() {
    if (!at('"')) return fail(), std::string_view{};
    std::size_t start = i_++;
    const char* p = t_.data();
    const std::size_t n = t_.size();
    while (i_ < n) {
        // The common case first: plain ASCII, no escape.
        while (i_ < n && p[i_] != '"' && p[i_] != '\\' && static_cast<unsigned char>(p[i_]) >= 0x20 &&
               static_cast<unsigned char>(p[i_]) < 0x80)
            ++i_;
        if (i_ == n) break;
        unsigned char c = static_cast<unsigned char>(t_[i_]);
        if (c == '"') {
            ++i_;
            return t_.substr(start, i_ - start);
        }
        if (c < 0x20) break;
        if (c == '\\') {
            ++i_;
            if (!escape()) break;
        } else if (c >= 0x80) {
            if (!utf8()) break;
        } else {
            ++i_;
        }
    }
    fail();
    return {};
}

void Scanner::literal(std::string_view word) {
    if (t_.substr(i_, word.size()) != word) fail();
    else i_ += word.size();
}

// JSON's number grammar; one that overflows a double nlohmann refuses too.
void Scanner::number() {
    std::size_t start = i_;
    auto digits = [&] {
        std::size_t d = i_;
        while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
        return i_ > d;
    };
    if (i_ < t_.size() && t_[i_] == '-') ++i_;
    if (i_ < t_.size() && t_[i_] == '0') ++i_;
    else if (!digits()) return (void)fail();
    bool real = false;
    if (i_ < t_.size() && t_[i_] == '.') {
        ++i_, real = true;
        if (!digits()) return (void)fail();
    }
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
        ++i_, real = true;
        if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) ++i_;
        if (!digits()) return (void)fail();
    }
    if (real || i_ - start > 19) {  // an integer past 64 bits is read as a double
        std::string s(t_.substr(start, i_ - start));
        if (!std::isfinite(std::strtod(s.c_str(), nullptr))) fail();
    }
}

void Scanner::value() {
    ws();
    if (!ok_ || i_ >= t_.size()) return (void)fail();
    char c = t_[i_];
    if (c == '"') {
        string();
    } else if (c == '{') {
        object([&](std::string_view) { value(); });
    } else if (c == '[') {
        ++i_;
        if (!enter()) return;
        if (!eat(']')) {
            do value();
            while (ok_ && eat(','));
            expect(']');
        }
        leave();
    } else if (c == 't') {
        literal("true");
    } else if (c == 'f') {
        literal("false");
    } else if (c == 'n') {
        literal("null");
    } else {
        number();
    }
}

// A string token as its value (escapes decoded only where there are any).
std::string decoded(std::string_view token) {
    if (token.find('\\') == std::string_view::npos) return std::string(token.substr(1, token.size() - 2));
    return json::parse(token).get<std::string>();
}

Unexpected<Error> bad(std::string_view source, std::string_view why) {
    return fail(std::string(source) + ": " + std::string(why));
}

}  // namespace

namespace {

struct Found {
    std::string fn;
    std::string name;  // empty: none, or not a string
    bool named = false;
    std::string_view text;
};

// One record's value: its text and its top-level "name" (the last one, as
// nlohmann keeps the last of a repeated key).
Found record(Scanner& s) {
    Found f;
    const std::size_t start = (s.ws(), s.pos());
    if (!s.at('{')) {
        s.value();
        f.text = s.from(start);
        return f;
    }
    s.object([&](std::string_view key) {
        if (key == "\"name\"" && s.at('"')) {
            auto v = s.string();
            if (s.ok()) f.name = decoded(v), f.named = true;
        } else {
            if (key == "\"name\"") f.named = false;
            s.value();
        }
    });
    f.text = s.from(start);
    return f;
}

// A "packages" object's records, by fn, the last of a repeated fn kept.
std::vector<Found> section(Scanner& s) {
    std::vector<Found> out;
    // More than a record per 256 bytes left: never regrown. Reserved pages
    // are only address space until written, so the overshoot costs nothing.
    out.reserve(s.left() / 256);
    s.object([&](std::string_view key) {
        Found f = record(s);
        f.fn = decoded(key);
        out.push_back(std::move(f));
    });
    auto by_fn = [](const Found& a, const Found& b) { return a.fn < b.fn; };
    if (!std::is_sorted(out.begin(), out.end(), by_fn))  // conda's index writes them sorted
        std::stable_sort(out.begin(), out.end(), by_fn);
    std::size_t kept = 0;  // in place: out[k] is compared before anything moves into it
    for (std::size_t k = 0; k < out.size(); ++k)
        if (k + 1 == out.size() || out[k + 1].fn != out[k].fn) {
            if (kept != k) out[kept] = std::move(out[k]);
            ++kept;
        }
    out.resize(kept);
    return out;
}

}  // namespace

Result<SparseRepoData> SparseRepoData::parse(std::string text, std::string_view source) {
    SparseRepoData rd;
    rd.text_ = std::make_shared<const std::string>(std::move(text));
    rd.source_ = std::string(source);
    Scanner s(*rd.text_);
    std::string_view info, version;
    std::vector<Found> sections[2];
    s.object([&](std::string_view key) {
        const std::size_t start = (s.ws(), s.pos());
        const int k = key == "\"packages\"" ? 0 : key == "\"packages.conda\"" ? 1 : -1;
        if (k >= 0 && s.at('{')) {
            sections[k] = section(s);
            return;
        }
        s.value();
        if (k >= 0) sections[k].clear();
        if (k >= 0 && s.from(start) != "null") s.fail();  // RepoData::parse says what is wrong
        if (key == "\"info\"") info = s.from(start);
        if (key == "\"repodata_version\"") version = s.from(start);
    });
    // Bad files are rare: the whole parse words their error as it always has.
    if (!s.ok() || !s.at_end()) {
        auto whole = RepoData::parse(*rd.text_, source, BadRecord::skip);
        if (whole) return bad(source, "not a valid JSON object");
        return Unexpected<Error>{whole.error()};
    }
    // info and repodata_version are small: RepoData::parse reads them, with its errors.
    std::string head = "{\"info\":" + std::string(info.empty() ? "null" : info) +
                       ",\"repodata_version\":" + std::string(version.empty() ? "null" : version) + "}";
    auto meta = RepoData::parse(head, source);
    if (!meta) return Unexpected<Error>{meta.error()};
    rd.subdir_ = std::move(meta->subdir);
    rd.base_url_ = std::move(meta->base_url);
    for (std::size_t k = 0; k < 2; ++k)
        for (auto& f : sections[k]) {
            Entry e{k, std::move(f.fn), f.text};
            if (f.named) rd.by_name_[f.name].push_back(std::move(e));
            else rd.unnamed_.push_back(std::move(e));
        }
    return rd;
}

std::set<std::string> SparseRepoData::names() const {
    std::set<std::string> out;
    for (const auto& [name, entries] : by_name_) out.insert(name);
    return out;
}

RepoData SparseRepoData::records(const std::set<std::string>& names) const {
    std::vector<const Entry*> entries;
    for (const auto& name : names)
        if (auto it = by_name_.find(name); it != by_name_.end())
            for (const auto& e : it->second) entries.push_back(&e);
    for (const auto& e : unnamed_) entries.push_back(&e);
    return read(entries);
}

RepoData SparseRepoData::all() const {
    std::vector<const Entry*> entries;
    for (const auto& [name, list] : by_name_)
        for (const auto& e : list) entries.push_back(&e);
    for (const auto& e : unnamed_) entries.push_back(&e);
    return read(entries);
}

RepoData SparseRepoData::read(const std::vector<const Entry*>& entries) const {
    std::vector<const Entry*> sorted = entries;
    std::sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) {
        return a->section != b->section ? a->section < b->section : a->fn < b->fn;
    });
    RepoData rd;
    rd.subdir = subdir_;
    rd.base_url = base_url_;
    for (const Entry* e : sorted) {
        // The scan checked the text: it parses.
        json j = json::parse(e->text.begin(), e->text.end());
        auto name = j.is_object() ? j.find("name") : j.end();
        std::string named = j.is_object() && name != j.end() && name->is_string() ? name->get<std::string>() : "";
        auto r = PackageRecord::from_json(std::move(j), source_ + ": " + e->fn);
        if (!r) {
            rd.skipped.push_back({std::move(named), r.error()});
            continue;
        }
        r->fn = e->fn;
        if (r->subdir.empty()) r->subdir = subdir_;
        rd.packages.push_back(std::move(*r));
    }
    return rd;
}

}  // namespace sf::types
