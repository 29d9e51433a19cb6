#pragma once
// Our Jinja2 subset, enough for conda-forge recipes. See src/ARCHITECTURE.md.
//   render():     a template -> text, with {{ }}, {% set/if/elif/else/for %}, {# #}
//                 and whitespace control ({%- -%} {{- -}}).
//   evaluate():   one Python/Jinja expression -> Value (used by # [selectors]).
// Errors carry file:line:col of the offending token, relative to the file the
// text came from (`origin`).
//
// Semantics worth knowing (Jinja2 default environment unless noted):
// - No trim_blocks/lstrip_blocks; the template's final newline is kept.
// - Scopes: top-level {% set %} (also inside if-blocks and {% set %}...{% endset %})
//   writes ctx.globals. Each for-iteration gets a fresh scope of its own, so a
//   set inside a loop neither leaks out nor carries over to the next iteration.
//   Lookup order: loop scopes (innermost first), ctx.globals, then the
//   built-in globals range() and dict().
// - strict mode: an unknown name is an error at its position; so is a missing
//   dict key/attribute or an out-of-range index. `x is defined`,
//   `x | default(...)` and `d.missing | default(...)` still work.
// - lenient mode: those give Undefined, which renders "", is falsy, iterates
//   as empty, and propagates through attribute/index/call/arithmetic.
// - at_use mode (minijinja 2.24's Strict, what rattler-build sets): an unknown
//   name is an undefined value, and the error comes where it is used:
//   comparing it (== != < in, either side), `~`, arithmetic, its truth
//   (if, not, and/or, a conditional's test), printing, iterating, its
//   attributes or items, passing it to a filter or a function (except the
//   functions in Hooks::undefined_ok, and `default`), or an expression whose
//   value it is. Tests (`is defined`, `is string`), `default` and list or
//   dict literals take it. `x if c` with no else is a silent undefined that
//   none of this refuses.
// - Callables in ctx.globals may return errors without a location (the call
//   site is added) and may even throw; nothing escapes render()/evaluate().
// - Hostile input is bounded: nesting depth 256, strings 16 MiB, lists 2^20
//   items, output 64 MiB, and an evaluation step budget per call.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "jinja/value.hpp"

namespace sf::jinja {

enum class Undefinedness {
    strict,   // looking up an unknown name is an error at file:line:col
    lenient,  // unknown names evaluate to Undefined (renders as "", falsy)
    at_use,   // unknown names evaluate to Undefined; using one is an error (minijinja Strict)
};

// Which language an expression is parsed as. minijinja (recipe.yaml, through
// rattler-build) also names the filters `split` and `version_to_buildstring`,
// which the caller supplies through Hooks::filters, and the tests
// `startingwith` and `endingwith`.
enum class Dialect { jinja2, minijinja };

// What a caller adds to one evaluation: both are off unless set. recipe.yaml
// (rattler-build's minijinja) needs them; meta.yaml never sets them.
struct Hooks {
    // Every global name an evaluation looked up (loop variables aside), found
    // or not: rattler-build counts a variant key only when evaluation reads it.
    std::set<std::string, std::less<>>* accessed = nullptr;
    // Filters tried before the built-in ones (minijinja's `split`,
    // rattler-build's `version_to_buildstring`).
    const std::map<std::string, Function, std::less<>>* filters = nullptr;
    // How `~` turns values into text (recipe.yaml: minijinja::display, lists
    // as [1, "a"] and floats as 1.0; Jinja2: Python's str()).
    std::string (*display)(const Value&) = nullptr;
    // Functions that take an undefined argument under Undefinedness::at_use
    // (rattler-build's match(), which is true for one).
    const std::set<std::string, std::less<>>* undefined_ok = nullptr;
};

struct Context {
    // Global names: variables, and callables such as compiler() or pin_subpackage().
    std::map<std::string, Value, std::less<>> globals;
    // Names not in `globals` are looked up here: a layer shared, not copied.
    const Context* base = nullptr;
    Undefinedness undefined = Undefinedness::strict;
    Hooks hooks;

    // A global name, here or in a base; null when none holds it.
    const Value* find(std::string_view name) const {
        for (const Context* c = this; c; c = c->base)
            if (auto it = c->globals.find(name); it != c->globals.end()) return &it->second;
        return nullptr;
    }
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
    static Result<Expression> parse(std::string_view expr, const Origin& origin, Dialect dialect = Dialect::jinja2);
    // Same semantics as jinja::evaluate().
    Result<Value> evaluate(const Context& ctx) const;

    struct Impl;

private:
    explicit Expression(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<const Impl> impl_;
};

}  // namespace sf::jinja
