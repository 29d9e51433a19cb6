#pragma once
// Our Jinja2 subset, enough for conda-forge recipes. See src/ARCHITECTURE.md.
//   render():     a template -> text, with {{ }}, {% set/if/elif/else/for %}, {# #}
//                 and whitespace control ({%- -%} {{- -}}).
//   evaluate():   one Python/Jinja expression -> Value (used by # [selectors]).
// Errors carry file:line:col of the offending token, relative to the file the
// text came from (`origin`).
#include <map>
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

}  // namespace sf::jinja
