// The builtins' arguments, str.format() and printf-style `%` formatting.
#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "jinja/internal.hpp"

namespace sf::jinja::detail {

// ---- argument helpers ---------------------------------------------------------

const Value* Args::get(std::size_t i, std::string_view name) const {
    if (i < pos.size()) return &pos[i];
    for (const auto& [k, v] : kw)
        if (k == name) return &v;
    return nullptr;
}

Result<void> Args::at_most(std::size_t n) const {
    if (pos.size() + kw.size() > n)
        return fail(std::string(fname) + "() takes at most " + std::to_string(n) + " argument" +
                    (n == 1 ? "" : "s") + " (" + std::to_string(pos.size() + kw.size()) + " given)");
    return {};
}

Result<void> Args::at_least(std::size_t n) const {
    if (pos.size() + kw.size() < n)
        return fail(std::string(fname) + "() takes at least " + std::to_string(n) + " argument" +
                    (n == 1 ? "" : "s") + " (" + std::to_string(pos.size() + kw.size()) + " given)");
    return {};
}

Result<std::string> Args::str(std::size_t i, std::string_view name) const {
    const Value* v = get(i, name);
    if (!v) return fail(std::string(fname) + "() missing required argument '" + std::string(name) + "'");
    if (!v->is_string())
        return fail(std::string(fname) + "() argument '" + std::string(name) + "' must be str, not " +
                    v->type_name());
    return v->as_string();
}

Result<std::int64_t> Args::integer(std::size_t i, std::string_view name, std::int64_t dflt) const {
    const Value* v = get(i, name);
    if (!v || v->is_none()) return dflt;
    if (v->is_int()) return v->as_int();
    if (v->is_bool()) return std::int64_t(v->as_bool());
    return fail(std::string(fname) + "() argument '" + std::string(name) + "' must be int, not " +
                v->type_name());
}

std::size_t find_sub(std::string_view hay, std::string_view needle, std::size_t from) {
    if (from > hay.size()) return std::string_view::npos;
    if (needle.size() <= 32) return hay.find(needle, from);
    std::boyer_moore_searcher searcher(needle.begin(), needle.end());
    auto it = std::search(hay.begin() + static_cast<std::ptrdiff_t>(from), hay.end(), searcher);
    return it == hay.end() ? std::string_view::npos : static_cast<std::size_t>(it - hay.begin());
}

std::size_t rfind_sub(std::string_view hay, std::string_view needle) {
    if (needle.size() <= 32) return hay.rfind(needle);
    if (needle.size() > hay.size()) return std::string_view::npos;
    std::boyer_moore_searcher searcher(needle.rbegin(), needle.rend());
    auto it = std::search(hay.rbegin(), hay.rend(), searcher);
    if (it == hay.rend()) return std::string_view::npos;
    return hay.size() - static_cast<std::size_t>(it - hay.rbegin()) - needle.size();
}

Result<Value> check_string(std::string s) {
    if (s.size() > kMaxString)
        return fail("string result is too long",
                    "strings are limited to " + std::to_string(kMaxString) + " bytes");
    return Value(std::move(s));
}

namespace {

// ---- one formatted field, shared by str.format() and % -------------------------

struct Spec {
    char fill = ' ';
    char align = 0;  // < > ^ = or 0 (type default)
    char sign = '-';
    bool zero = false;
    std::int64_t width = 0;
    int prec = -1;
    char type = 0;
};

// The digits of an integer conversion (d i x X o b), without the sign.
Result<std::string> integer_digits(const Value& v, char type, bool& neg) {
    std::int64_t i;
    if (v.is_float()) {
        double d = v.as_float();
        if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) return fail("cannot convert float to integer");
        i = static_cast<std::int64_t>(d);
    } else {
        i = v.is_bool() ? v.as_bool() : v.as_int();
    }
    neg = i < 0;
    std::uint64_t u = neg ? (~static_cast<std::uint64_t>(i) + 1) : static_cast<std::uint64_t>(i);
    std::string body;
    if (type == 'b') {
        if (u == 0) body = "0";
        while (u) { body.insert(body.begin(), char('0' + (u & 1))); u >>= 1; }
        return body;
    }
    return type == 'x'   ? fmt::format("{:x}", u)
           : type == 'X' ? fmt::format("{:X}", u)
           : type == 'o' ? fmt::format("{:o}", u)
                         : fmt::format("{}", u);
}

// The digits of a float conversion (f F e E g G %), without the sign.
Result<std::string> float_digits(const Value& v, const Spec& sp, char type, bool& neg) {
    double d = to_double(v);
    int prec = sp.prec < 0 ? 6 : sp.prec;
    if (prec > 100) return fail("format precision is too large");
    if (type == '%') d *= 100;
    neg = std::signbit(d) && !std::isnan(d);
    double a = std::fabs(d);
    std::string body;
    switch (type) {
    case 'F': body = fmt::format("{:.{}F}", a, prec); break;
    case 'e': body = fmt::format("{:.{}e}", a, prec); break;
    case 'E': body = fmt::format("{:.{}E}", a, prec); break;
    case 'g': body = fmt::format("{:.{}g}", a, prec); break;
    case 'G': body = fmt::format("{:.{}G}", a, prec); break;
    default: body = fmt::format("{:.{}f}", a, prec); break;  // f and %
    }
    if (type == '%') body += '%';
    return body;
}

// A number's text with its sign (the numeric conversions).
Result<std::string> number_body(const Value& v, const Spec& sp) {
    char type = sp.type;
    if (!is_number(v))
        return fail(std::string("format code '") + (type ? std::string(1, type) : std::string("")) +
                    "' requires a number, not " + v.type_name());
    if (type == 0) type = (v.is_float() ? (sp.prec >= 0 ? 'g' : 0) : 'd');
    bool neg = false;
    std::string body;
    if (type == 0) {  // float without type: Python repr
        body = v.str();
        if (!body.empty() && body[0] == '-') { neg = true; body.erase(0, 1); }
    } else if (type == 'd' || type == 'i' || type == 'x' || type == 'X' || type == 'o' || type == 'b') {
        SF_TRY(digits, integer_digits(v, type, neg));
        body = std::move(digits);
    } else if (std::string_view("fFeEgG%").find(type) != std::string_view::npos) {
        SF_TRY(digits, float_digits(v, sp, type, neg));
        body = std::move(digits);
    } else {
        return fail(std::string("unknown format code '") + type + "'");
    }
    std::string sign = neg ? "-" : (sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "");
    return sign + body;
}

// `body` padded to the spec's width (numbers right, text left by default).
Result<std::string> pad_field(std::string body, const Spec& sp, bool numeric) {
    if (sp.width > static_cast<std::int64_t>(kMaxString)) return fail("format width is too large");
    auto width = static_cast<std::size_t>(sp.width);
    if (body.size() >= width) return body;
    std::size_t pad = width - body.size();
    char align = sp.align ? sp.align : (numeric ? '>' : '<');
    char fill = sp.fill;
    if (sp.zero && !sp.align) { align = '='; fill = '0'; }
    if (align == '<') return body + std::string(pad, fill);
    if (align == '^') return std::string(pad / 2, fill) + body + std::string(pad - pad / 2, fill);
    if (align == '=' && numeric && !body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' '))
        return body.substr(0, 1) + std::string(pad, fill) + body.substr(1);
    return std::string(pad, fill) + body;
}

Result<std::string> format_field(const Value& v, const Spec& sp) {
    std::string body;
    bool numeric = false;
    char type = sp.type;
    if (type == 'r') {
        body = v.repr();
    } else if (type == 0 && !is_number(v)) {
        body = v.str();
        if (sp.prec >= 0 && v.is_string() && body.size() > static_cast<std::size_t>(sp.prec))
            body.resize(static_cast<std::size_t>(sp.prec));
    } else if (type == 's') {
        body = v.str();
        if (sp.prec >= 0 && body.size() > static_cast<std::size_t>(sp.prec))
            body.resize(static_cast<std::size_t>(sp.prec));
    } else if (type == 'c') {
        if (v.is_string() && v.as_string().size() == 1) body = v.as_string();
        else if (v.is_int() && v.as_int() >= 0 && v.as_int() < 128) body = std::string(1, char(v.as_int()));
        else return fail("%c requires an int or a single character");
    } else {
        SF_TRY(number, number_body(v, sp));
        body = std::move(number);
        numeric = true;
    }
    return pad_field(std::move(body), sp, numeric);
}

bool read_int(std::string_view s, std::size_t& i, std::int64_t& out) {
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    out = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (out > 100'000'000) return false;
        out = out * 10 + (s[i++] - '0');
    }
    return true;
}

Result<Spec> parse_format_spec(std::string_view s) {
    Spec sp;
    std::size_t i = 0;
    auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
    if (s.size() >= 2 && is_align(s[1])) { sp.fill = s[0]; sp.align = s[1]; i = 2; }
    else if (!s.empty() && is_align(s[0])) { sp.align = s[0]; i = 1; }
    if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) sp.sign = s[i++];
    if (i < s.size() && s[i] == '0') { sp.zero = true; ++i; }
    std::int64_t n = 0;
    if (read_int(s, i, n)) sp.width = n;
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (!read_int(s, i, n)) return fail("format specifier missing precision");
        sp.prec = static_cast<int>(std::min<std::int64_t>(n, 1000));
    }
    if (i < s.size()) sp.type = s[i++];
    if (i != s.size()) return fail("invalid format specifier '" + std::string(s) + "'");
    return sp;
}

}  // namespace

Result<std::string> str_format(const std::string& fmt, const List& args, const KwArgs& kwargs) {
    std::string out;
    std::size_t auto_index = 0;
    for (std::size_t i = 0; i < fmt.size(); ++i) {
        char c = fmt[i];
        if (c == '}') {
            if (i + 1 < fmt.size() && fmt[i + 1] == '}') { out += '}'; ++i; continue; }
            return fail("single '}' encountered in format string");
        }
        if (c != '{') { out += c; continue; }
        if (i + 1 < fmt.size() && fmt[i + 1] == '{') { out += '{'; ++i; continue; }
        std::size_t close = fmt.find('}', i + 1);
        if (close == std::string::npos) return fail("single '{' encountered in format string");
        std::string_view field(fmt.data() + i + 1, close - i - 1);
        i = close;
        std::string_view spec, conv;
        if (auto colon = field.find(':'); colon != std::string_view::npos) {
            spec = field.substr(colon + 1);
            field = field.substr(0, colon);
        }
        if (auto bang = field.find('!'); bang != std::string_view::npos) {
            conv = field.substr(bang + 1);
            field = field.substr(0, bang);
        }
        const Value* v = nullptr;
        if (field.empty()) {
            if (auto_index >= args.size()) return fail("replacement index " + std::to_string(auto_index) + " out of range for positional args tuple");
            v = &args[auto_index++];
        } else if (field[0] >= '0' && field[0] <= '9') {
            std::size_t j = 0;
            std::int64_t idx = 0;
            if (!read_int(field, j, idx) || j != field.size() || static_cast<std::size_t>(idx) >= args.size())
                return fail("replacement index " + std::string(field) + " out of range for positional args tuple");
            v = &args[static_cast<std::size_t>(idx)];
        } else {
            for (const auto& [k, val] : kwargs)
                if (k == field) v = &val;
            if (!v) return fail("format() has no keyword argument '" + std::string(field) + "'");
        }
        SF_TRY(sp, parse_format_spec(spec));
        if (conv == "r") sp.type = sp.type ? sp.type : 'r';
        else if (!conv.empty() && conv != "s") return fail("unknown conversion '!" + std::string(conv) + "'");
        Value shown = conv == "s" ? Value(v->str()) : *v;
        SF_TRY(piece, format_field(shown, sp));
        out += piece;
        if (out.size() > kMaxString) return fail("string result is too long");
    }
    return out;
}

namespace {

// A `%` conversion's flags, width (`*` takes an argument) and precision,
// read from fmt[i], which is left at its type character.
Result<Spec> percent_spec(const std::string& fmt, std::size_t& i, const std::function<const Value*()>& take) {
    Spec sp;
    for (; i < fmt.size() && std::string_view("-+ 0#").find(fmt[i]) != std::string_view::npos; ++i) {
        if (fmt[i] == '-') sp.align = '<';
        else if (fmt[i] == '0') sp.zero = true;
        else if (fmt[i] == '+' || fmt[i] == ' ') sp.sign = fmt[i];
    }
    std::int64_t n = 0;
    if (i < fmt.size() && fmt[i] == '*') {
        const Value* w = take();
        if (!w || !w->is_int()) return fail("* wants int");
        sp.width = std::max<std::int64_t>(0, w->as_int());
        ++i;
    } else if (read_int(fmt, i, n)) {
        sp.width = n;
    }
    if (i < fmt.size() && fmt[i] == '.') {
        ++i;
        n = 0;
        read_int(fmt, i, n);
        sp.prec = static_cast<int>(std::min<std::int64_t>(n, 1000));
    }
    return sp;
}

}  // namespace

Result<std::string> percent_format(const std::string& fmt, const Value& args) {
    std::string out;
    const List* list = args.is_list() ? &args.as_list() : nullptr;
    std::size_t next_arg = 0;
    bool used_mapping = false;
    auto take = [&]() -> const Value* {
        if (list) return next_arg < list->size() ? &(*list)[next_arg++] : nullptr;
        return next_arg++ == 0 ? &args : nullptr;
    };
    for (std::size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] != '%') { out += fmt[i]; continue; }
        if (++i >= fmt.size()) return fail("incomplete format");
        if (fmt[i] == '%') { out += '%'; continue; }
        const Value* v = nullptr;
        if (fmt[i] == '(') {
            std::size_t close = fmt.find(')', i);
            if (close == std::string::npos) return fail("incomplete format key");
            if (!args.is_dict()) return fail("format requires a mapping");
            v = args.get(fmt.substr(i + 1, close - i - 1));
            if (!v) return fail("format key '" + fmt.substr(i + 1, close - i - 1) + "' not found");
            used_mapping = true;
            i = close + 1;
        }
        SF_TRY(sp, percent_spec(fmt, i, take));
        if (i >= fmt.size()) return fail("incomplete format");
        char type = fmt[i];
        if (std::string_view("srdifFeEgGxXoc").find(type) == std::string_view::npos)
            return fail(std::string("unsupported format character '") + type + "'");
        if (!v) v = take();
        if (!v) return fail("not enough arguments for format string");
        if ((type == 'd' || type == 'i' || std::string_view("fFeEgGxXo").find(type) != std::string_view::npos) &&
            !is_number(*v))
            return fail(std::string("%") + type + " format: a number is required, not " + v->type_name());
        if (sp.zero && sp.align == '<') sp.zero = false;
        sp.type = type == 'i' ? 'd' : type;
        SF_TRY(piece, format_field(*v, sp));
        out += piece;
        if (out.size() > kMaxString) return fail("string result is too long");
    }
    if (!used_mapping && ((list && next_arg < list->size()) || (!list && next_arg == 0 && !args.is_dict())))
        return fail("not all arguments converted during string formatting");
    return out;
}

}  // namespace sf::jinja::detail
