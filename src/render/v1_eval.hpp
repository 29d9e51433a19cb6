#pragma once
// recipe.yaml evaluation (rattler-build's stage0 -> stage1 step) for one
// variant: `${{ }}` expressions with minijinja's semantics over our Jinja
// engine, `if/then/else` anywhere, context in order, and the functions
// rattler-build defines (compiler, stdlib, cdt, pin_*, match, is_*, env).
// Which names evaluation reads is recorded: rattler-build hashes a variant
// key only when it was read.
//
// Where minijinja differs from Jinja2, the differences are these and only
// these: values print as minijinja prints them (true/false/none), `split`
// and `version_to_buildstring` are filters, and `${{ }}` is the only
// expression delimiter (a bare `{{` is text).
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "jinja/jinja.hpp"
#include "recipe/v1_recipe.hpp"
#include "types/platform.hpp"

namespace sf::render::v1 {

using Vars = std::map<std::string, jinja::Value, std::less<>>;

// A whole `${{ }}` value as text, as rattler-build's Variable prints it
// (booleans as true/false; the rest as jinja::minijinja::display).
std::string to_text(const jinja::Value& v);

// A pin_subpackage()/pin_compatible() result travels as a dict with this key.
inline constexpr const char* kPinKey = "__sf_pin__";

// Parsed expressions, shared by every variant of one recipe.
struct ExprCache {
    std::map<std::string, jinja::Expression, std::less<>> parsed;
};

class Env {
public:
    // `variant`: the variant's values, typed as rattler-build reads them.
    // `environ`: values env.get()/env.exists() see over this process's
    // environment (variant::Selection::extra_environ); it must outlive the Env.
    using Environ = std::vector<std::pair<std::string, std::string>>;
    Env(const recipe::V1Recipe& r, const types::Platform& target, const types::Platform& build, const Vars& variant,
        ExprCache& cache, const Environ& environ);
    Env(const Env&) = delete;
    Env& operator=(const Env&) = delete;

    // The context section, evaluated in order; each value may use the ones before.
    Result<void> eval_context();
    // The names read since the last clear (loop variables aside).
    const std::set<std::string, std::less<>>& accessed() const { return accessed_; }
    void clear_accessed() { accessed_.clear(); }
    // The names read while the context was evaluated, context names too (a
    // context value shadowing a variant key still counts the key, as
    // rattler-build's accessed_during_context does): each output uses them.
    const std::set<std::string, std::less<>>& read_by_context() const { return read_by_context_; }
    const Vars& context_values() const { return context_; }
    bool is_context_name(const std::string& k) const { return context_.count(k) > 0; }
    void set(const std::string& name, jinja::Value v) { vars_.globals[name] = std::move(v); }
    // Scripts name what only the build defines (PYTHON, ...): unknown names render "" there.
    void set_lenient(bool on) { vars_.undefined = on ? jinja::Undefinedness::lenient : jinja::Undefinedness::at_use; }

    // A scalar node as a value: one whole `${{ expr }}` keeps its type,
    // anything else is text (a plain `true` or `3` is typed as YAML reads it).
    Result<jinja::Value> value(const recipe::YamlNode& n);
    Result<std::string> text(const recipe::YamlNode& n);
    Result<bool> condition(const recipe::YamlNode& cond);
    // One `skip:` item as rattler-build reads it: an expression, or a
    // `${{ }}` template whose text is then evaluated as one ("false" does not
    // skip; empty text or text that does not evaluate is no condition).
    Result<bool> skip_condition(const recipe::YamlNode& cond);
    // A list (or one item) with if/then/else resolved: the items that apply.
    Result<std::vector<const recipe::YamlNode*>> items(const recipe::YamlNode& n);
    // A template string (no YAML node), e.g. build.string, at `where`.
    Result<std::string> render_text(const std::string& s, const recipe::YamlNode& where);

    const recipe::V1Recipe& recipe() const { return r_; }

private:
    Result<jinja::Value> context_value(const recipe::YamlNode& v);
    Result<jinja::Value> eval_expr(std::string_view expr, const recipe::YamlNode& where, int offset);
    void add_functions(const types::Platform& target, const types::Platform& build, const Environ& environ);

    const recipe::V1Recipe& r_;
    ExprCache& cache_;
    std::set<std::string, std::less<>> accessed_, read_by_context_;
    std::map<std::string, jinja::Function, std::less<>> filters_;
    jinja::Context base_;  // platform names and functions
    jinja::Context vars_;  // the variant and the context, over base_
    Vars context_;
};

}  // namespace sf::render::v1
