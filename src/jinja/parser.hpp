#pragma once
// The AST of our Jinja2 subset and the recursive-descent parser producing it.
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "jinja/jinja.hpp"
#include "jinja/lexer.hpp"
#include "jinja/registry.hpp"
#include "jinja/value.hpp"

namespace sf::jinja::detail {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind {
    literal,   // value
    name,      // name
    list,      // kids: items (also tuples)
    dict,      // kids: key, value, key, value, ...
    neg,       // kids[0]
    pos,       // kids[0]
    not_,      // kids[0]
    binary,    // op, kids[0], kids[1]
    compare,   // ops[i] between kids[i] and kids[i+1]
    and_,      // kids[0], kids[1]
    or_,       // kids[0], kids[1]
    cond,      // kids: then, condition, else (else may be null)
    getattr,   // kids[0], name
    getitem,   // kids[0], kids[1]
    slice,     // kids[0], start, stop, step (each may be null)
    call,      // kids[0] callee, then args (see nargs/kwnames)
    filter,    // name, kids[0] input, then args
    test,      // name, kids[0] input, then args; negated
};

struct Expr {
    ExprKind kind = ExprKind::literal;
    int line = 0;
    int col = 0;
    int height = 1;                  // 1 + tallest child; bounded by kMaxDepth
    Value value;                     // literal
    std::string name;                // name / attribute / filter / test / operator
    std::vector<std::string> ops;    // compare
    std::vector<std::pair<int, int>> op_locs;  // compare: line/col of each operator
    std::vector<ExprPtr> kids;
    // For call/filter/test: kids[1..1+npos) are positional, the rest keyword
    // arguments named by kwnames.
    std::size_t npos = 0;
    std::vector<std::string> kwnames;
    bool negated = false;            // test: `is not`
    FilterFn filter_fn = nullptr;    // filter: its dialect's builtin (null: the caller's, Hooks::filters)
    TestFn test_fn = nullptr;        // test: its dialect's builtin
};

struct Node;
using NodePtr = std::unique_ptr<Node>;
using Body = std::vector<NodePtr>;

enum class NodeKind { text, output, set, set_block, if_, for_ };

struct Branch {
    ExprPtr cond;  // null for else
    Body body;
};

struct Node {
    NodeKind kind = NodeKind::text;
    int line = 0;
    int col = 0;
    std::string text;                  // text
    ExprPtr expr;                      // output / set value / for iterable
    std::vector<std::string> targets;  // set / for targets (more than one: unpacking)
    std::vector<Branch> branches;      // if/elif/else
    ExprPtr filter;                    // for ... if <filter>
    Body body;                         // for body, set block body
    Body else_body;                    // for ... else
};

Result<Body> parse_template(std::vector<Token> tokens, const Origin& origin);
Result<ExprPtr> parse_expression(std::vector<Token> tokens, const Origin& origin, Dialect dialect = Dialect::jinja2);

}  // namespace sf::jinja::detail
