// Recursive-descent parser: tokens -> AST. Precedence, lowest first:
//   x if c else y | or | and | not | comparisons (== != < <= > >= in, not in)
//   | + - | ~ | * / // % | unary - + | ** | filters and tests (| f, is t)
//   | postfix (.attr, [index], [a:b:c], (call)) | primary
// (`~` sits between + and * and filters bind tighter than any binary
// operator, as in Jinja; ** binds tighter than unary minus, as in Python.)
#include "jinja/parser.hpp"

#include <algorithm>
#include <initializer_list>

#include "jinja/internal.hpp"

namespace sf::jinja::detail {
namespace {

bool is_reserved(const std::string& n) {
    static const char* const words[] = {"and", "or", "not", "if", "else", "in", "is", "elif"};
    return std::any_of(std::begin(words), std::end(words), [&](const char* w) { return n == w; });
}

class Parser {
public:
    Parser(std::vector<Token> tokens, const Origin& origin, Dialect dialect = Dialect::jinja2)
        : t_(std::move(tokens)), origin_(origin), dialect_(dialect) {}

    Result<Body> parse_template() {
        std::string stop;
        SF_TRY(body, parse_body({}, stop));
        return body;
    }

    Result<ExprPtr> parse_whole_expression() {
        SF_TRY(e, parse_expr());
        if (peek().kind != Tok::eof) return unexpected(peek(), "end of expression");
        return e;
    }

private:
    std::vector<Token> t_;
    const Origin& origin_;
    Dialect dialect_;
    std::size_t i_ = 0;
    int depth_ = 0;
    // Blocks being parsed, innermost last: tag name and its '{%' token.
    std::vector<std::pair<std::string, Token>> open_;

    struct OpenBlock {
        std::vector<std::pair<std::string, Token>>& open;
        OpenBlock(std::vector<std::pair<std::string, Token>>& o, const char* kind, const Token& at) : open(o) {
            open.emplace_back(kind, at);
        }
        ~OpenBlock() { open.pop_back(); }
    };

    struct DepthGuard {
        int& d;
        explicit DepthGuard(int& depth) : d(++depth) {}
        ~DepthGuard() { --d; }
    };

    const Token& peek(std::size_t k = 0) const {
        std::size_t j = std::min(i_ + k, t_.size() - 1);
        return t_[j];
    }
    const Token& next() {
        const Token& t = peek();
        if (i_ < t_.size() - 1) ++i_;
        return t;
    }
    bool is_op(const char* op, std::size_t k = 0) const {
        const Token& t = peek(k);
        return t.kind == Tok::op && t.op == op_code(op);
    }
    bool is_name(const char* n, std::size_t k = 0) const {
        const Token& t = peek(k);
        return t.kind == Tok::name && t.text == n;
    }
    SourceLoc loc(const Token& t) const { return SourceLoc{origin_.file, t.line, t.col}; }
    SourceLoc loc(int line, int col) const { return SourceLoc{origin_.file, line, col}; }

    Unexpected<Error> unexpected(const Token& t, const std::string& expected) const {
        return fail(loc(t), "unexpected " + describe(t) + ", expected " + expected);
    }
    Unexpected<Error> too_deep(const Token& t) const {
        return fail(loc(t), "template is nested too deeply",
                    "at most " + std::to_string(kMaxDepth) + " levels of nesting are supported");
    }

    Result<void> expect_op(const char* op) {
        if (!is_op(op)) return unexpected(peek(), std::string("'") + op + "'");
        next();
        return {};
    }
    Result<void> expect_block_end() {
        if (peek().kind != Tok::block_end) return unexpected(peek(), "end of tag '%}'");
        next();
        return {};
    }

    ExprPtr make(ExprKind kind, const Token& at) {
        auto e = std::make_unique<Expr>();
        e->kind = kind;
        e->line = at.line;
        e->col = at.col;
        return e;
    }
    ExprPtr make(ExprKind kind, int line, int col) {
        auto e = std::make_unique<Expr>();
        e->kind = kind;
        e->line = line;
        e->col = col;
        return e;
    }
    // Computes the height of a finished node and rejects trees that would
    // make evaluation recurse too deeply.
    Result<ExprPtr> done(ExprPtr e) {
        int h = 0;
        for (const auto& k : e->kids)
            if (k) h = std::max(h, k->height);
        e->height = h + 1;
        if (e->height > kMaxDepth) return too_deep(peek());
        return e;
    }

    // ---- statements -------------------------------------------------------

    // Parses nodes until a {% tag %} named in `stops` (left unconsumed, with
    // its name in `stop`) or the end of input (`stop` empty).
    Result<Body> parse_body(std::initializer_list<const char*> stops, std::string& stop) {
        Body body;
        stop.clear();
        while (true) {
            const Token& t = peek();
            if (t.kind == Tok::eof) return body;
            if (t.kind == Tok::text) {
                auto n = std::make_unique<Node>();
                n->kind = NodeKind::text;
                n->line = t.line;
                n->col = t.col;
                n->text = std::move(t_[std::min(i_, t_.size() - 1)].text);  // a text token is read once
                next();
                body.push_back(std::move(n));
                continue;
            }
            if (t.kind == Tok::var_begin) {
                const Token& begin = next();
                auto n = std::make_unique<Node>();
                n->kind = NodeKind::output;
                n->line = begin.line;
                n->col = begin.col;
                if (peek().kind == Tok::var_end) return unexpected(peek(), "an expression");
                SF_TRY(e, parse_expr());
                if (peek().kind != Tok::var_end) return unexpected(peek(), "end of expression '}}'");
                next();
                n->expr = std::move(e);
                body.push_back(std::move(n));
                continue;
            }
            if (t.kind != Tok::block_begin) return unexpected(t, "template text or a tag");
            const Token& name = peek(1);
            if (name.kind != Tok::name) return unexpected(name, "a tag name");
            for (const char* s : stops) {
                if (name.text == s) {
                    stop = s;
                    return body;
                }
            }
            const Token& begin = next();
            next();  // the tag name
            NodePtr node;
            if (name.text == "if") {
                SF_TRY(n, parse_if(begin));
                node = std::move(n);
            } else if (name.text == "for") {
                SF_TRY(n, parse_for(begin));
                node = std::move(n);
            } else if (name.text == "set") {
                SF_TRY(n, parse_set(begin));
                node = std::move(n);
            } else if (name.text == "endif" || name.text == "elif" || name.text == "else" ||
                       name.text == "endfor" || name.text == "endset") {
                std::string opener = name.text == "endfor" ? "for" : name.text == "endset" ? "set" : "if";
                // A closing tag for an outer block: the inner one was left open.
                for (const auto& blk : open_) {
                    if (blk.first != opener) continue;
                    const auto& inner = open_.back();
                    return fail(loc(inner.second), "unclosed '{% " + inner.first + " %}' block",
                                "missing '{% end" + inner.first + " %}'");
                }
                return fail(loc(begin), "unexpected '{% " + name.text + " %}'",
                            "no '{% " + opener + " %}' block is open here");
            } else {
                return fail(loc(name), "unknown tag '" + name.text + "'",
                            "supported tags: if, elif, else, endif, for, endfor, set, endset, raw");
            }
            body.push_back(std::move(node));
        }
    }

    NodePtr make_node(NodeKind kind, const Token& at) {
        auto n = std::make_unique<Node>();
        n->kind = kind;
        n->line = at.line;
        n->col = at.col;
        return n;
    }

    Result<NodePtr> parse_if(const Token& begin) {
        DepthGuard g(depth_);
        if (depth_ > kMaxDepth) return too_deep(begin);
        auto node = make_node(NodeKind::if_, begin);
        Token open = begin;
        OpenBlock blk(open_, "if", begin);
        SF_TRY(cond, parse_expr());
        SF_TRY_VOID(expect_block_end());
        bool seen_else = false;
        Branch branch{std::move(cond), {}};
        while (true) {
            std::string stop;
            SF_TRY(body, parse_body({"elif", "else", "endif"}, stop));
            branch.body = std::move(body);
            node->branches.push_back(std::move(branch));
            if (stop.empty())
                return fail(loc(open), "unclosed '{% if %}' block", "missing '{% endif %}'");
            const Token& tag_begin = next();
            next();
            if (stop == "endif") {
                SF_TRY_VOID(expect_block_end());
                return node;
            }
            if (seen_else)
                return fail(loc(tag_begin), "unexpected '{% " + stop + " %}' after '{% else %}'",
                            "'{% else %}' must be the last branch of an '{% if %}'");
            if (stop == "elif") {
                SF_TRY(c, parse_expr());
                branch = Branch{std::move(c), {}};
            } else {
                seen_else = true;
                branch = Branch{nullptr, {}};
            }
            SF_TRY_VOID(expect_block_end());
        }
    }

    Result<std::vector<std::string>> parse_targets() {
        std::vector<std::string> names;
        bool paren = is_op("(");
        if (paren) next();
        while (true) {
            const Token& t = peek();
            if (t.kind != Tok::name || is_reserved(t.text)) return unexpected(t, "a variable name");
            names.push_back(t.text);
            next();
            if (!is_op(",")) break;
            next();
        }
        if (paren) SF_TRY_VOID(expect_op(")"));
        return names;
    }

    Result<NodePtr> parse_for(const Token& begin) {
        DepthGuard g(depth_);
        if (depth_ > kMaxDepth) return too_deep(begin);
        auto node = make_node(NodeKind::for_, begin);
        Token open = begin;
        OpenBlock blk(open_, "for", begin);
        SF_TRY(targets, parse_targets());
        node->targets = std::move(targets);
        if (!is_name("in")) return unexpected(peek(), "'in'");
        next();
        SF_TRY(iter, parse_or());
        node->expr = std::move(iter);
        if (is_name("if")) {
            next();
            SF_TRY(f, parse_or());
            node->filter = std::move(f);
        }
        SF_TRY_VOID(expect_block_end());
        std::string stop;
        SF_TRY(body, parse_body({"else", "endfor"}, stop));
        node->body = std::move(body);
        if (stop == "else") {
            next();
            next();
            SF_TRY_VOID(expect_block_end());
            SF_TRY(else_body, parse_body({"endfor"}, stop));
            node->else_body = std::move(else_body);
        }
        if (stop.empty()) return fail(loc(open), "unclosed '{% for %}' block", "missing '{% endfor %}'");
        next();
        next();
        SF_TRY_VOID(expect_block_end());
        return node;
    }

    Result<NodePtr> parse_set(const Token& begin) {
        DepthGuard g(depth_);
        if (depth_ > kMaxDepth) return too_deep(begin);
        Token open = begin;
        SF_TRY(targets, parse_targets());
        if (is_op("=")) {
            next();
            auto node = make_node(NodeKind::set, open);
            node->targets = std::move(targets);
            SF_TRY(value, parse_tuple());
            node->expr = std::move(value);
            SF_TRY_VOID(expect_block_end());
            return node;
        }
        if (peek().kind != Tok::block_end) return unexpected(peek(), "'=' or '%}'");
        if (targets.size() != 1)
            return fail(loc(open), "a '{% set %}' block assigns exactly one name");
        next();
        auto node = make_node(NodeKind::set_block, open);
        OpenBlock blk(open_, "set", open);
        node->targets = std::move(targets);
        std::string stop;
        SF_TRY(body, parse_body({"endset"}, stop));
        if (stop.empty()) return fail(loc(open), "unclosed '{% set %}' block", "missing '{% endset %}'");
        node->body = std::move(body);
        next();
        next();
        SF_TRY_VOID(expect_block_end());
        return node;
    }

    // ---- expressions ------------------------------------------------------

    // expr (',' expr)*: a bare tuple, as on the right of {% set a, b = 1, 2 %}.
    Result<ExprPtr> parse_tuple() {
        const Token& first = peek();
        SF_TRY(e, parse_expr());
        if (!is_op(",")) return e;
        auto list = make(ExprKind::list, first);
        list->kids.push_back(std::move(e));
        while (is_op(",")) {
            next();
            if (peek().kind == Tok::block_end) break;
            SF_TRY(item, parse_expr());
            list->kids.push_back(std::move(item));
        }
        return done(std::move(list));
    }

    Result<ExprPtr> parse_expr() {
        DepthGuard g(depth_);
        if (depth_ > kMaxDepth) return too_deep(peek());
        const Token& start = peek();
        SF_TRY(value, parse_or());
        if (!is_name("if")) return value;
        next();
        auto e = make(ExprKind::cond, start);
        SF_TRY(cond, parse_or());
        e->kids.push_back(std::move(value));
        e->kids.push_back(std::move(cond));
        if (is_name("else")) {
            next();
            SF_TRY(other, parse_expr());
            e->kids.push_back(std::move(other));
        } else {
            e->kids.push_back(nullptr);
        }
        return done(std::move(e));
    }

    // operand (`word` operand)*, left-associative: `or` and `and`.
    Result<ExprPtr> parse_logical(const char* word, ExprKind kind, Result<ExprPtr> (Parser::*operand)()) {
        SF_TRY(left, (this->*operand)());
        while (is_name(word)) {
            const Token& op = next();
            SF_TRY(right, (this->*operand)());
            auto e = make(kind, op);
            e->kids.push_back(std::move(left));
            e->kids.push_back(std::move(right));
            SF_TRY(d, done(std::move(e)));
            left = std::move(d);
        }
        return left;
    }

    Result<ExprPtr> parse_or() { return parse_logical("or", ExprKind::or_, &Parser::parse_and); }
    Result<ExprPtr> parse_and() { return parse_logical("and", ExprKind::and_, &Parser::parse_not); }

    Result<ExprPtr> parse_not() {
        if (!is_name("not")) return parse_compare();
        DepthGuard g(depth_);
        if (depth_ > kMaxDepth) return too_deep(peek());
        const Token& op = next();
        SF_TRY(operand, parse_not());
        auto e = make(ExprKind::not_, op);
        e->kids.push_back(std::move(operand));
        return done(std::move(e));
    }

    Result<ExprPtr> parse_compare() {
        const Token& start = peek();
        SF_TRY(first, parse_sum());
        ExprPtr cmp;
        while (true) {
            std::string op;
            const Token& t = peek();
            const std::pair<int, int> where{t.line, t.col};
            if (t.kind == Tok::op && (t.text == "==" || t.text == "!=" || t.text == "<" ||
                                      t.text == "<=" || t.text == ">" || t.text == ">=")) {
                op = t.text;
                next();
            } else if (is_name("in")) {
                op = "in";
                next();
            } else if (is_name("not") && is_name("in", 1)) {
                op = "not in";
                next();
                next();
            } else {
                break;
            }
            if (!cmp) {
                cmp = make(ExprKind::compare, start);
                cmp->kids.push_back(std::move(first));
            }
            SF_TRY(operand, parse_sum());
            cmp->ops.push_back(op);
            cmp->op_locs.push_back(where);
            cmp->kids.push_back(std::move(operand));
        }
        if (!cmp) return first;
        return done(std::move(cmp));
    }

    Result<ExprPtr> binary(ExprPtr left, ExprPtr right, const Token& op) {
        auto e = make(ExprKind::binary, op);
        e->name = op.text;
        e->kids.push_back(std::move(left));
        e->kids.push_back(std::move(right));
        return done(std::move(e));
    }

    Result<ExprPtr> parse_sum() {
        SF_TRY(left, parse_concat());
        while (is_op("+") || is_op("-")) {
            Token op = next();
            SF_TRY(right, parse_concat());
            SF_TRY(e, binary(std::move(left), std::move(right), op));
            left = std::move(e);
        }
        return left;
    }

    Result<ExprPtr> parse_concat() {
        SF_TRY(left, parse_product());
        while (is_op("~")) {
            Token op = next();
            SF_TRY(right, parse_product());
            SF_TRY(e, binary(std::move(left), std::move(right), op));
            left = std::move(e);
        }
        return left;
    }

    Result<ExprPtr> parse_product() {
        SF_TRY(left, parse_unary());
        while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
            Token op = next();
            SF_TRY(right, parse_unary());
            SF_TRY(e, binary(std::move(left), std::move(right), op));
            left = std::move(e);
        }
        return left;
    }

    Result<ExprPtr> parse_unary() {
        if (!is_op("-") && !is_op("+")) return parse_power();
        DepthGuard g(depth_);
        if (depth_ > kMaxDepth) return too_deep(peek());
        Token op = next();
        SF_TRY(operand, parse_unary());
        // Fold negative number literals so -9223372036854775808 style
        // constants and `-1` cost nothing at run time.
        if (operand->kind == ExprKind::literal && op.text == "-" &&
            (operand->value.is_float() || operand->value.is_int())) {
            if (operand->value.is_float()) {
                operand->value = Value(-operand->value.as_float());
                operand->line = op.line;
                operand->col = op.col;
                return operand;
            }
            if (operand->value.as_int() != INT64_MIN) {
                operand->value = Value(-operand->value.as_int());
                operand->line = op.line;
                operand->col = op.col;
                return operand;
            }
        }
        auto e = make(op.text == "-" ? ExprKind::neg : ExprKind::pos, op);
        e->kids.push_back(std::move(operand));
        return done(std::move(e));
    }

    Result<ExprPtr> parse_power() {
        SF_TRY(base, parse_filtered());
        if (!is_op("**")) return base;
        DepthGuard g(depth_);
        if (depth_ > kMaxDepth) return too_deep(peek());
        Token op = next();
        SF_TRY(exponent, parse_unary());  // right-associative: 2 ** 3 ** 2
        return binary(std::move(base), std::move(exponent), op);
    }

    Result<ExprPtr> parse_filtered() {
        SF_TRY(node, parse_postfix());
        while (true) {
            if (is_op("|")) {
                next();
                const Token& name = peek();
                if (name.kind != Tok::name) return unexpected(name, "a filter name");
                const auto* known = filters(dialect_).find(name.text);
                if (!known) return fail(loc(name), "unknown filter '" + name.text + "'");
                auto e = make(ExprKind::filter, name);
                e->name = name.text;
                e->filter_fn = known->fn;
                next();
                e->kids.push_back(std::move(node));
                if (is_op("(")) SF_TRY_VOID(parse_call_args(*e));
                SF_TRY(d, done(std::move(e)));
                node = std::move(d);
            } else if (is_name("is")) {
                next();
                bool negated = false;
                if (is_name("not")) {
                    negated = true;
                    next();
                }
                const Token& name = peek();
                if (name.kind != Tok::name) return unexpected(name, "a test name");
                std::string test = name.text;
                if (test == "none" || test == "None") test = "none";
                if (test == "true" || test == "True") test = "true";
                if (test == "false" || test == "False") test = "false";
                const auto* known = tests(dialect_).find(test);
                if (!known) return fail(loc(name), "unknown test '" + name.text + "'");
                auto e = make(ExprKind::test, name);
                e->name = test;
                e->test_fn = known->fn;
                e->negated = negated;
                next();
                e->kids.push_back(std::move(node));
                if (is_op("(")) {
                    SF_TRY_VOID(parse_call_args(*e));
                } else if (starts_test_arg()) {  // `x is divisibleby 3`, `x is in [1, 2]`
                    SF_TRY(arg, parse_postfix());
                    e->kids.push_back(std::move(arg));
                    e->npos = 1;
                }
                SF_TRY(d, done(std::move(e)));
                node = std::move(d);
            } else {
                return node;
            }
        }
    }

    bool starts_test_arg() const {
        const Token& t = peek();
        if (t.kind == Tok::integer || t.kind == Tok::floating || t.kind == Tok::string) return true;
        if (t.kind == Tok::name) return !is_reserved(t.text);
        return is_op("[") || is_op("{");
    }

    // '(' args ')' appended to e.kids after kids[0].
    Result<void> parse_call_args(Expr& e) {
        SF_TRY_VOID(expect_op("("));
        while (!is_op(")")) {
            if (peek().kind == Tok::name && is_op("=", 1)) {
                e.kwnames.push_back(peek().text);
                next();
                next();
                SF_TRY(v, parse_expr());
                e.kids.push_back(std::move(v));
            } else {
                if (!e.kwnames.empty())
                    return fail(loc(peek()), "positional argument follows keyword argument");
                SF_TRY(v, parse_expr());
                e.kids.push_back(std::move(v));
                ++e.npos;
            }
            if (!is_op(",")) break;
            next();
        }
        return expect_op(")");
    }

    Result<ExprPtr> parse_postfix() {
        SF_TRY(node, parse_primary());
        while (true) {
            if (is_op(".")) {
                const Token& dot = next();
                const Token& name = peek();
                ExprPtr e;
                if (name.kind == Tok::name) {
                    e = make(ExprKind::getattr, name);
                    e->name = name.text;
                    e->kids.push_back(std::move(node));
                } else if (name.kind == Tok::integer) {  // Jinja: foo.0 is foo[0]
                    e = make(ExprKind::getitem, dot);
                    e->kids.push_back(std::move(node));
                    e->kids.push_back(make(ExprKind::literal, name));
                    e->kids.back()->value = Value(name.ival);
                } else {
                    return unexpected(name, "an attribute name");
                }
                next();
                SF_TRY(d, done(std::move(e)));
                node = std::move(d);
            } else if (is_op("[")) {
                SF_TRY(e, parse_subscript(std::move(node)));
                node = std::move(e);
            } else if (is_op("(")) {
                const Token& paren = peek();
                auto e = make(ExprKind::call, paren);
                e->kids.push_back(std::move(node));
                SF_TRY_VOID(parse_call_args(*e));
                SF_TRY(d, done(std::move(e)));
                node = std::move(d);
            } else {
                return node;
            }
        }
    }

    Result<ExprPtr> parse_subscript(ExprPtr object) {
        DepthGuard g(depth_);
        if (depth_ > kMaxDepth) return too_deep(peek());
        const Token& bracket = next();
        ExprPtr parts[3];
        int colons = 0;
        if (!is_op(":")) {
            SF_TRY(first, parse_expr());
            parts[0] = std::move(first);
        }
        while (is_op(":") && colons < 2) {
            next();
            ++colons;
            if (!is_op(":") && !is_op("]")) {
                SF_TRY(p, parse_expr());
                parts[colons] = std::move(p);
            }
        }
        if (colons == 0 && !parts[0]) return unexpected(peek(), "an index");
        SF_TRY_VOID(expect_op("]"));
        auto e = make(colons == 0 ? ExprKind::getitem : ExprKind::slice, bracket);
        e->kids.push_back(std::move(object));
        if (colons == 0) {
            e->kids.push_back(std::move(parts[0]));
        } else {
            for (auto& p : parts) e->kids.push_back(std::move(p));
        }
        return done(std::move(e));
    }

    Result<ExprPtr> parse_primary() {
        DepthGuard g(depth_);
        if (depth_ > kMaxDepth) return too_deep(peek());
        const Token& t = peek();
        switch (t.kind) {
        case Tok::integer: {
            auto e = make(ExprKind::literal, t);
            e->value = Value(t.ival);
            next();
            return e;
        }
        case Tok::floating: {
            auto e = make(ExprKind::literal, t);
            e->value = Value(t.fval);
            next();
            return e;
        }
        case Tok::string: {
            auto e = make(ExprKind::literal, t);
            std::string s = t.text;
            next();
            while (peek().kind == Tok::string) {  // "a" "b" concatenates
                s += peek().text;
                if (s.size() > kMaxString) return fail(loc(t), "string literal is too long");
                next();
            }
            e->value = Value(std::move(s));
            return e;
        }
        case Tok::name: {
            const std::string& n = t.text;
            auto e = make(ExprKind::literal, t);
            if (n == "true" || n == "True") e->value = Value(true);
            else if (n == "false" || n == "False") e->value = Value(false);
            else if (n == "none" || n == "None") e->value = Value(None{});
            else if (is_reserved(n)) return unexpected(t, "an expression");
            else {
                e->kind = ExprKind::name;
                e->name = n;
            }
            next();
            return e;
        }
        case Tok::op:
            if (t.text == "(") return parse_paren();
            if (t.text == "[") return parse_list();
            if (t.text == "{") return parse_dict();
            return unexpected(t, "an expression");
        default:
            return unexpected(t, "an expression");
        }
    }

    Result<ExprPtr> parse_paren() {
        const Token& open = next();
        if (is_op(")")) {
            next();
            return make(ExprKind::list, open);
        }
        SF_TRY(first, parse_expr());
        if (is_op(")")) {
            next();
            return first;
        }
        auto list = make(ExprKind::list, open);
        list->kids.push_back(std::move(first));
        while (is_op(",")) {
            next();
            if (is_op(")")) break;
            SF_TRY(item, parse_expr());
            list->kids.push_back(std::move(item));
        }
        SF_TRY_VOID(expect_op(")"));
        return done(std::move(list));
    }

    Result<ExprPtr> parse_list() {
        const Token& open = next();
        auto list = make(ExprKind::list, open);
        while (!is_op("]")) {
            SF_TRY(item, parse_expr());
            list->kids.push_back(std::move(item));
            if (!is_op(",")) break;
            next();
        }
        if (!is_op("]")) return unexpected(peek(), "',' or ']'");
        next();
        return done(std::move(list));
    }

    Result<ExprPtr> parse_dict() {
        const Token& open = next();
        auto dict = make(ExprKind::dict, open);
        while (!is_op("}")) {
            SF_TRY(key, parse_expr());
            SF_TRY_VOID(expect_op(":"));
            SF_TRY(value, parse_expr());
            dict->kids.push_back(std::move(key));
            dict->kids.push_back(std::move(value));
            if (!is_op(",")) break;
            next();
        }
        if (!is_op("}")) return unexpected(peek(), "',' or '}'");
        next();
        return done(std::move(dict));
    }
};

}  // namespace

Result<Body> parse_template(std::vector<Token> tokens, const Origin& origin) {
    Parser p(std::move(tokens), origin);
    return p.parse_template();
}

Result<ExprPtr> parse_expression(std::vector<Token> tokens, const Origin& origin, Dialect dialect) {
    Parser p(std::move(tokens), origin, dialect);
    return p.parse_whole_expression();
}

}  // namespace sf::jinja::detail
