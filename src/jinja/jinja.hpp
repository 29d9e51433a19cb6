#pragma once
// Our Jinja2 subset, enough for conda-forge recipes. See src/ARCHITECTURE.md.
//   render():     a template -> text, with {{ }}, {% set/if/elif/else/for %}, {# #}
//                 and whitespace control ({%- -%} {{- -}}).
//   evaluate():   one Python/Jinja expression -> Value (used by # [selectors]).
// Errors carry file:line:col of the offending token, relative to the file the
// text came from (`origin`).
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "jinja/value.hpp"

namespace sf::jinja {

enum class Undefinedness {
    strict,   // looking up an unknown name is an error at file:line:col
    lenient,  // unknown names evaluate to Undefined (renders as "", falsy)
};

struct Context {
    // Global names: variables, and callables such as compiler() or pin_subpackage().
    std::map<std::string, Value, std::less<>> globals;
    Undefinedness undefined = Undefinedness::strict;
};

// Where the text came from, so errors point into the real file.
struct Origin {
    std::string file;
    int first_line = 1;  // line number of the first line of `text` in `file`
    int first_col = 1;   // column of the first character (for expressions cut out of a line)
};

// Renders a whole template. `{% set %}` at the top level (also inside if-blocks)
// writes into ctx.globals, so the caller can read the variables a recipe set.
Result<std::string> render(std::string_view text, const Origin& origin, Context& ctx);

// Evaluates one expression with Python semantics (and/or return operands,
// comparisons chain, `in`, `not in`, conditional expressions, ...).
Result<Value> evaluate(std::string_view expr, const Origin& origin, const Context& ctx);

// A parsed template, for callers that render the same text many times (one
// recipe, many variants). Cheap to copy; immutable once parsed.
class Template {
public:
    static Result<Template> parse(std::string_view text, const Origin& origin);
    // Same semantics as jinja::render().
    Result<std::string> render(Context& ctx) const;
    const Origin& origin() const;

    struct Impl;

private:
    explicit Template(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<const Impl> impl_;
};

// A parsed expression (e.g. one `# [selector]`), evaluated many times.
class Expression {
public:
    static Result<Expression> parse(std::string_view expr, const Origin& origin);
    // Same semantics as jinja::evaluate().
    Result<Value> evaluate(const Context& ctx) const;

    struct Impl;

private:
    explicit Expression(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<const Impl> impl_;
};

}  // namespace sf::jinja
