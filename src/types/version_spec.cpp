#include "types/version_spec.hpp"

#include <boost/regex.hpp>

#include "util/strings.hpp"

namespace sf::types {
namespace {

// As in ECMAScript and Python's re, ^ and $ match only at the ends of the text and . matches no
// line break (Boost's Perl default would match ^ and $ at every line and . at any character).
constexpr boost::regex::flag_type kEcma = boost::regex::no_mod_s | boost::regex::no_mod_m;

using Node = VersionSpec::Node;
using Op = VersionSpec::Op;

Unexpected<Error> bad(std::string_view whole, std::string_view why) {
    return fail("invalid version spec '" + std::string(whole) + "': " + std::string(why));
}

// Tokens as conda's treeify sees them: regexes (^...$), the punctuation
// ( ) | , and everything else up to the next punctuation, trimmed.
std::vector<std::string> tokenize(std::string_view s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i >= s.size()) break;
        char c = s[i];
        if (c == '^') {
            size_t e = s.find('$', i);
            e = e == std::string_view::npos ? s.size() : e + 1;
            out.emplace_back(s.substr(i, e - i));
            i = e;
        } else if (c == '(' || c == ')' || c == '|' || c == ',') {
            out.emplace_back(1, c);
            ++i;
        } else {
            size_t e = s.find_first_of("()|,", i);
            if (e == std::string_view::npos) e = s.size();
            out.emplace_back(str::trim(s.substr(i, e - i)));
            i = e;
        }
    }
    return out;
}

bool is_punct(const std::string& t) { return t == "(" || t == ")" || t == "|" || t == ","; }

Result<Node> leaf(std::string_view whole, const std::string& s) {
    Node n;
    auto version_of = [&](std::string_view v) -> Result<Version> {
        auto r = Version::parse(v);
        if (!r) return bad(whole, r.error().message);
        return r;
    };
    if (s.front() == '^' || s.back() == '$') {
        if (s.front() != '^' || s.back() != '$')
            return bad(whole, "regex specs must start with '^' and end with '$'");
        n.op = Op::regex;
        n.pattern = s;
        try {
            boost::regex test(s, kEcma);
        } catch (const boost::regex_error&) {
            return bad(whole, "invalid regular expression " + s);
        }
        return n;
    }
    if (std::string_view("=<>!~").find(s.front()) != std::string_view::npos) {
        static const char* ops[] = {"==", "!=", "<=", ">=", "~=", "=", "<", ">"};
        std::string op;
        for (const char* o : ops) {
            if (str::starts_with(s, o)) {
                op = o;
                break;
            }
        }
        std::string v = s.substr(op.size());
        if (op.empty() || v.empty() || std::string_view("=<>!~").find(v.front()) != std::string_view::npos ||
            v.find_first_of(" \t") != std::string::npos)
            return bad(whole, "invalid operator in '" + s + "'");
        bool star = str::ends_with(v, ".*") || (op == "=" && str::ends_with(v, "*"));
        if (star) {
            if (op == "~=") return bad(whole, "invalid operator with '.*' in '" + s + "'");
            v = v.substr(0, v.size() - (str::ends_with(v, ".*") ? 2 : 1));
        }
        auto ver = version_of(v);
        if (!ver) return Unexpected<Error>{ver.error()};
        n.version = *ver;
        if (op == "==") n.op = Op::eq;
        else if (op == "!=") n.op = star ? Op::not_starts : Op::ne;
        else if (op == "<=") n.op = Op::le;
        else if (op == ">=") n.op = Op::ge;
        else if (op == "<") n.op = Op::lt;
        else if (op == ">") n.op = Op::gt;
        else if (op == "=") n.op = Op::starts;
        else {
            if (ver->release_size() < 2)
                return bad(whole, "'~=' needs a version with at least two components in '" + s + "'");
            n.op = Op::compatible;
            n.prefix = ver->truncated(ver->release_size() - 1);
        }
        return n;
    }
    if (s == "*") return n;  // Op::any
    std::string body = s;
    while (!body.empty() && body.back() == '*') body.pop_back();
    if (body.find('*') != std::string::npos) {
        // A glob in the middle (1.*.3): a regex over the version text.
        std::string rx = "^(?:";
        for (char c : s) {
            if (c == '*') rx += ".*";
            else if (std::string_view(".+()[]{}^$|?\\").find(c) != std::string_view::npos) rx += std::string("\\") + c;
            else rx += c;
        }
        n.op = Op::glob;
        n.pattern = rx + ")$";
        return n;
    }
    if (s.back() == '*') {
        while (!body.empty() && body.back() == '.') body.pop_back();
        auto ver = version_of(body);
        if (!ver) return Unexpected<Error>{ver.error()};
        n.op = Op::starts;
        n.version = *ver;
        return n;
    }
    auto ver = version_of(s);
    if (!ver) return Unexpected<Error>{ver.error()};
    n.op = Op::eq;
    n.version = *ver;
    return n;
}

constexpr int kMaxParens = 64;

struct Parser {
    std::string_view whole;
    std::vector<std::string> toks;
    size_t pos = 0;
    int depth = 0;  // open '(' : the parser recurses once per level

    const std::string* peek() const { return pos < toks.size() ? &toks[pos] : nullptr; }

    // operand (sep operand)*: one node of `op`, or the operand alone.
    Result<Node> parse_list(Op op, const char* sep, Result<Node> (Parser::*operand)()) {
        auto first = (this->*operand)();
        if (!first) return first;
        Node n;
        n.op = op;
        n.kids.push_back(std::move(*first));
        while (peek() && *peek() == sep) {
            ++pos;
            auto next = (this->*operand)();
            if (!next) return next;
            n.kids.push_back(std::move(*next));
        }
        if (n.kids.size() == 1) return std::move(n.kids[0]);
        return n;
    }
    Result<Node> parse_or() { return parse_list(Op::or_, "|", &Parser::parse_and); }
    Result<Node> parse_and() { return parse_list(Op::and_, ",", &Parser::parse_primary); }
    Result<Node> parse_primary() {
        const std::string* t = peek();
        if (!t) return bad(whole, "expected a version after the last operator");
        if (*t == "(") {
            ++pos;
            if (++depth > kMaxParens) return bad(whole, "parentheses nested more than 64 deep");
            auto inner = parse_or();
            --depth;
            if (!inner) return inner;
            if (!peek() || *peek() != ")") return bad(whole, "missing ')'");
            ++pos;
            return inner;
        }
        if (is_punct(*t)) return bad(whole, "unexpected '" + *t + "'");
        ++pos;
        return leaf(whole, *t);
    }
};

bool eval(const Node& n, const Version& v) {
    switch (n.op) {
        case Op::any: return true;
        case Op::eq: return v == n.version;
        case Op::ne: return v != n.version;
        case Op::lt: return v < n.version;
        case Op::le: return v <= n.version;
        case Op::gt: return v > n.version;
        case Op::ge: return v >= n.version;
        case Op::starts: return v.starts_with(n.version);
        case Op::not_starts: return !v.starts_with(n.version);
        case Op::compatible: return v >= n.version && v.starts_with(n.prefix);
        case Op::glob:
        case Op::regex: return boost::regex_search(v.str(), boost::regex(n.pattern, kEcma));
        case Op::and_:
            for (const auto& k : n.kids)
                if (!eval(k, v)) return false;
            return true;
        case Op::or_:
            for (const auto& k : n.kids)
                if (eval(k, v)) return true;
            return false;
    }
    return false;
}

}  // namespace

Result<VersionSpec> VersionSpec::parse(std::string_view text) {
    std::string t(str::trim(text));
    if (t.empty()) return bad(text, "empty version spec");
    Parser p{text, tokenize(t)};
    auto root = p.parse_or();
    if (!root) return Unexpected<Error>{root.error()};
    if (p.pos != p.toks.size()) return bad(text, "unexpected '" + p.toks[p.pos] + "'");
    VersionSpec out;
    out.text_ = t;
    out.root_ = std::make_shared<const Node>(std::move(*root));
    return out;
}

VersionSpec VersionSpec::any() {
    VersionSpec out;
    out.text_ = "*";
    out.root_ = std::make_shared<const Node>();
    return out;
}

bool VersionSpec::matches(const Version& v) const { return !root_ || eval(*root_, v); }

bool VersionSpec::is_any() const { return !root_ || root_->op == Op::any; }

std::string VersionSpec::exact_version() const {
    return root_ && root_->op == Op::eq ? root_->version.str() : std::string{};
}

}  // namespace sf::types
