#include "jinja/lexer.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace sf::jinja::detail {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

class Lexer {
public:
    Lexer(std::string_view src, const Origin& origin) : s_(src), origin_(origin) {}

    Result<std::vector<Token>> run(LexMode mode) {
        out_.reserve(s_.size() / 4 + 4);
        if (mode == LexMode::expression) {
            while (true) {
                skip_space();
                if (pos_ >= s_.size()) break;
                if (auto r = expr_token(); !r) return Unexpected<Error>{r.error()};
            }
        } else {
            if (auto r = template_text(); !r) return Unexpected<Error>{r.error()};
        }
        Token eof;
        eof.kind = Tok::eof;
        locate(s_.size(), eof.line, eof.col);
        out_.push_back(std::move(eof));
        return std::move(out_);
    }

private:
    std::string_view s_;
    const Origin& origin_;
    std::size_t pos_ = 0;
    std::vector<Token> out_;
    bool strip_next_ = false;  // a -%} asked to strip the following text
    std::string brackets_;     // open ( [ { inside the current tag
    // Incremental offset -> line/col tracking (offsets mostly increase).
    std::size_t track_ = 0;
    int line_idx_ = 0;
    std::size_t line_start_ = 0;

    void locate(std::size_t off, int& line, int& col) {
        if (off < track_) { track_ = 0; line_idx_ = 0; line_start_ = 0; }
        const std::size_t end = std::min(off, s_.size());
        while (track_ < end) {  // newline to newline (memchr), not character by character
            const void* nl = std::memchr(s_.data() + track_, '\n', end - track_);
            if (!nl) {
                track_ = end;
                break;
            }
            line_start_ = track_ = static_cast<std::size_t>(static_cast<const char*>(nl) - s_.data()) + 1;
            ++line_idx_;
        }
        line = origin_.first_line + line_idx_;
        col = static_cast<int>(off - line_start_) + 1 + (line_idx_ == 0 ? origin_.first_col - 1 : 0);
    }

    SourceLoc loc_at(std::size_t off) {
        SourceLoc l;
        l.file = origin_.file;
        locate(off, l.line, l.col);
        return l;
    }

    Token make(Tok kind, std::size_t off, std::string text = {}) {
        Token t;
        t.kind = kind;
        t.text = std::move(text);
        locate(off, t.line, t.col);
        return t;
    }

    void skip_space() {
        while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
    }

    void emit_text(std::size_t begin, std::size_t end) {
        std::string_view t = s_.substr(begin, end - begin);
        if (strip_next_) {
            std::size_t i = 0;
            while (i < t.size() && is_space(t[i])) ++i;
            t.remove_prefix(i);
            begin += i;
            strip_next_ = false;
        }
        if (!t.empty()) out_.push_back(make(Tok::text, begin, std::string(t)));
    }

    void strip_previous_text() {
        if (out_.empty() || out_.back().kind != Tok::text) return;
        std::string& t = out_.back().text;
        while (!t.empty() && is_space(t.back())) t.pop_back();
        if (t.empty()) out_.pop_back();
    }

    Result<void> template_text() {
        while (pos_ < s_.size()) {
            std::size_t open = pos_;
            while (true) {
                open = s_.find('{', open);
                if (open == std::string_view::npos || open + 1 >= s_.size()) {
                    open = std::string_view::npos;
                    break;
                }
                char c = s_[open + 1];
                if (c == '{' || c == '%' || c == '#') break;
                ++open;
            }
            if (open == std::string_view::npos) {
                emit_text(pos_, s_.size());
                pos_ = s_.size();
                break;
            }
            emit_text(pos_, open);
            pos_ = open;
            Result<void> r = s_[open + 1] == '#' ? comment() : tag();
            if (!r) return r;
        }
        return {};
    }

    Result<void> comment() {
        std::size_t begin = pos_;
        pos_ += 2;
        if (pos_ < s_.size() && s_[pos_] == '-') strip_previous_text();
        std::size_t end = s_.find("#}", pos_);
        if (end == std::string_view::npos)
            return fail(loc_at(begin), "unclosed comment", "missing '#}'");
        if (end > pos_ && s_[end - 1] == '-') strip_next_ = true;
        pos_ = end + 2;
        return {};
    }

    // {% raw %} ... {% endraw %}: everything in between is text.
    // Returns true when a raw block was consumed.
    Result<bool> try_raw(std::size_t begin) {
        std::size_t p = pos_;
        while (p < s_.size() && is_space(s_[p])) ++p;
        if (s_.substr(p, 3) != "raw" || (p + 3 < s_.size() && is_name_char(s_[p + 3]))) return false;
        p += 3;
        while (p < s_.size() && is_space(s_[p])) ++p;
        bool strip_after = false;
        if (p < s_.size() && s_[p] == '-') { strip_after = true; ++p; }
        if (s_.substr(p, 2) != "%}") return false;
        std::size_t body = p + 2;
        // Find the matching {% endraw %}.
        std::size_t q = body;
        while (true) {
            q = s_.find("{%", q);
            if (q == std::string_view::npos)
                return fail(loc_at(begin), "unclosed '{% raw %}' block", "missing '{% endraw %}'");
            std::size_t r = q + 2;
            bool strip_before = false;
            if (r < s_.size() && s_[r] == '-') { strip_before = true; ++r; }
            while (r < s_.size() && is_space(s_[r])) ++r;
            if (s_.substr(r, 6) != "endraw") { q += 2; continue; }
            r += 6;
            while (r < s_.size() && is_space(s_[r])) ++r;
            bool strip_end = false;
            if (r < s_.size() && s_[r] == '-') { strip_end = true; ++r; }
            if (s_.substr(r, 2) != "%}") { q += 2; continue; }
            std::string_view content = s_.substr(body, q - body);
            if (strip_after)
                while (!content.empty() && is_space(content.front())) content.remove_prefix(1);
            if (strip_before)
                while (!content.empty() && is_space(content.back())) content.remove_suffix(1);
            if (!content.empty()) out_.push_back(make(Tok::text, body, std::string(content)));
            strip_next_ = strip_end;
            pos_ = r + 2;
            return true;
        }
    }

    Result<void> tag() {
        std::size_t begin = pos_;
        bool is_var = s_[pos_ + 1] == '{';
        pos_ += 2;
        if (pos_ < s_.size() && s_[pos_] == '-') {
            strip_previous_text();
            ++pos_;
        } else if (!is_var && pos_ < s_.size() && s_[pos_] == '+') {
            ++pos_;
        }
        if (!is_var) {
            auto raw = try_raw(begin);
            if (!raw) return Unexpected<Error>{raw.error()};
            if (*raw) return {};
        }
        out_.push_back(make(is_var ? Tok::var_begin : Tok::block_begin, begin, is_var ? "{{" : "{%"));
        brackets_.clear();
        while (true) {
            skip_space();
            if (pos_ >= s_.size()) {
                return is_var ? fail(loc_at(begin), "unclosed '{{'", "missing '}}'")
                              : fail(loc_at(begin), "unclosed '{%'", "missing '%}'");
            }
            bool dash = s_[pos_] == '-';
            std::string_view close = is_var ? "}}" : "%}";
            // Inside {{ }}, `}}` may close nested dicts: {{ {'a': {'b': 1}}}}.
            bool in_dict = !brackets_.empty() && brackets_.back() == '{';
            if (s_.substr(pos_ + (dash ? 1 : 0), 2) == close && (!is_var || !in_dict)) {
                out_.push_back(make(is_var ? Tok::var_end : Tok::block_end, pos_, std::string(close)));
                pos_ += (dash ? 3 : 2);
                if (dash) strip_next_ = true;
                return {};
            }
            if (auto r = expr_token(); !r) return r;
        }
    }

    Result<void> expr_token() {
        std::size_t begin = pos_;
        char c = s_[pos_];
        if (is_name_start(c)) {
            while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
            out_.push_back(make(Tok::name, begin, std::string(s_.substr(begin, pos_ - begin))));
            return {};
        }
        if (is_digit(c)) return number();
        if (c == '\'' || c == '"') return string_literal();
        char c2 = pos_ + 1 < s_.size() ? s_[pos_ + 1] : '\0';
        if ((c == '*' && c2 == '*') || (c == '/' && c2 == '/') ||
            (c2 == '=' && (c == '=' || c == '!' || c == '<' || c == '>'))) {
            char op[3] = {c, c2, 0};
            Token t = make(Tok::op, begin, op);
            t.op = op_code(op);
            out_.push_back(std::move(t));
            pos_ += 2;
            return {};
        }
        if (std::string_view("+-*/%~<>()[]{},:.|=").find(c) != std::string_view::npos) {
            if (c == '(' || c == '[' || c == '{') brackets_ += c;
            if ((c == ')' || c == ']' || c == '}') && !brackets_.empty()) brackets_.pop_back();
            char op[2] = {c, 0};
            Token t = make(Tok::op, begin, op);
            t.op = op_code(op);
            out_.push_back(std::move(t));
            ++pos_;
            return {};
        }
        auto uc = static_cast<unsigned char>(c);
        std::string shown =
            uc >= 0x20 && uc < 0x7f ? fmt::format("'{}'", c) : fmt::format("'\\x{:02x}'", unsigned{uc});
        return fail(loc_at(begin), "unexpected character " + shown);
    }

    Result<void> number() {
        std::size_t begin = pos_;
        std::string digits;
        bool is_float = false;
        auto eat_digits = [&] {
            while (pos_ < s_.size() && (is_digit(s_[pos_]) || (s_[pos_] == '_' && !digits.empty() &&
                                                                 pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1])))) {
                if (s_[pos_] != '_') digits += s_[pos_];
                ++pos_;
            }
        };
        eat_digits();
        if (pos_ + 1 < s_.size() && s_[pos_] == '.' && is_digit(s_[pos_ + 1])) {
            is_float = true;
            digits += '.';
            ++pos_;
            eat_digits();
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            std::size_t p = pos_ + 1;
            if (p < s_.size() && (s_[p] == '+' || s_[p] == '-')) ++p;
            if (p < s_.size() && is_digit(s_[p])) {
                is_float = true;
                digits += 'e';
                if (s_[pos_ + 1] == '-') digits += '-';
                pos_ = p;
                eat_digits();
            }
        }
        Token t = make(is_float ? Tok::floating : Tok::integer, begin,
                       std::string(s_.substr(begin, pos_ - begin)));
        if (is_float) {
            t.fval = std::strtod(digits.c_str(), nullptr);
        } else {
            auto res = std::from_chars(digits.data(), digits.data() + digits.size(), t.ival);
            if (res.ec != std::errc())
                return fail(loc_at(begin), "integer literal '" + t.text + "' is too large");
        }
        out_.push_back(std::move(t));
        return {};
    }

    Result<void> string_literal() {
        std::size_t begin = pos_;
        char quote = s_[pos_++];
        std::string value;
        while (true) {
            if (pos_ >= s_.size()) return fail(loc_at(begin), "unterminated string literal");
            char c = s_[pos_++];
            if (c == quote) break;
            if (c != '\\') { value += c; continue; }
            if (pos_ >= s_.size()) return fail(loc_at(begin), "unterminated string literal");
            char e = s_[pos_++];
            switch (e) {
            case 'n': value += '\n'; break;
            case 't': value += '\t'; break;
            case 'r': value += '\r'; break;
            case '0': value += '\0'; break;
            case 'a': value += '\a'; break;
            case 'b': value += '\b'; break;
            case 'f': value += '\f'; break;
            case 'v': value += '\v'; break;
            case '\\': value += '\\'; break;
            case '\'': value += '\''; break;
            case '"': value += '"'; break;
            case '\n': break;  // line continuation
            case 'x': case 'u': case 'U': {
                int n = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
                std::uint32_t cp = 0;
                for (int i = 0; i < n; ++i) {
                    int h = pos_ < s_.size() ? hex_value(s_[pos_]) : -1;
                    if (h < 0)
                        return fail(loc_at(pos_ < s_.size() ? pos_ : begin),
                                    std::string("invalid \\") + e + " escape in string literal");
                    cp = cp * 16 + static_cast<std::uint32_t>(h);
                    ++pos_;
                }
                if (cp > 0x10FFFF)
                    return fail(loc_at(begin), "invalid unicode escape in string literal");
                append_utf8(value, cp);
                break;
            }
            default: value += '\\'; value += e; break;
            }
        }
        Token t = make(Tok::string, begin, std::move(value));
        out_.push_back(std::move(t));
        return {};
    }
};

}  // namespace

Result<std::vector<Token>> lex(std::string_view src, const Origin& origin, LexMode mode) {
    Lexer lx(src, origin);
    return lx.run(mode);
}

std::string describe(const Token& t) {
    switch (t.kind) {
    case Tok::text: return "template text";
    case Tok::var_begin: return "'{{'";
    case Tok::var_end: return "'}}'";
    case Tok::block_begin: return "'{%'";
    case Tok::block_end: return "'%}'";
    case Tok::name: return "name '" + t.text + "'";
    case Tok::integer: case Tok::floating: return "number " + t.text;
    case Tok::string: return "string literal";
    case Tok::op: return "'" + t.text + "'";
    case Tok::eof: return "end of input";
    }
    return "token";
}

}  // namespace sf::jinja::detail
