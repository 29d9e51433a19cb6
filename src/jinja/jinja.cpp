// Entry points: render(), evaluate(), Template and Expression.
#include "jinja/jinja.hpp"

#include <exception>
#include <new>

#include "jinja/eval.hpp"
#include "jinja/internal.hpp"
#include "jinja/lexer.hpp"
#include "jinja/parser.hpp"

namespace sf::jinja {

struct Template::Impl {
    Origin origin;
    detail::Body body;
};

struct Expression::Impl {
    Origin origin;
    detail::ExprPtr expr;
};

namespace {

// Nothing may escape the public entry points, whatever the input.
template <class T, class F>
Result<T> guarded(const Origin& origin, F&& f) {
    try {
        return f();
    } catch (const std::bad_alloc&) {
        return fail(SourceLoc{origin.file, origin.first_line, 0}, "out of memory while processing template");
    } catch (const std::exception& e) {
        return fail(SourceLoc{origin.file, origin.first_line, 0}, std::string("internal error: ") + e.what());
    }
}

}  // namespace

Result<Template> Template::parse(std::string_view text, const Origin& origin) {
    return guarded<Template>(origin, [&]() -> Result<Template> {
        SF_TRY(tokens, detail::lex(text, origin, detail::LexMode::template_text));
        SF_TRY(body, detail::parse_template(std::move(tokens), origin));
        auto impl = std::make_shared<Impl>();
        impl->origin = origin;
        impl->body = std::move(body);
        return Template(std::move(impl));
    });
}

Result<std::string> Template::render(Context& ctx) const {
    return guarded<std::string>(impl_->origin, [&]() -> Result<std::string> {
        detail::Evaluator ev(impl_->origin.file, ctx.globals, &ctx.globals, ctx.undefined, ctx.base, ctx.hooks);
        std::string out;
        SF_TRY_VOID(ev.exec(impl_->body, out));
        return out;
    });
}

const Origin& Template::origin() const { return impl_->origin; }

Result<Expression> Expression::parse(std::string_view expr, const Origin& origin, Dialect dialect) {
    return guarded<Expression>(origin, [&]() -> Result<Expression> {
        SF_TRY(tokens, detail::lex(expr, origin, detail::LexMode::expression));
        SF_TRY(e, detail::parse_expression(std::move(tokens), origin, dialect));
        auto impl = std::make_shared<Impl>();
        impl->origin = origin;
        impl->expr = std::move(e);
        return Expression(std::move(impl));
    });
}

Result<Value> Expression::evaluate(const Context& ctx) const {
    return guarded<Value>(impl_->origin, [&]() -> Result<Value> {
        detail::Evaluator ev(impl_->origin.file, ctx.globals, nullptr, ctx.undefined, ctx.base, ctx.hooks);
        return ev.eval_defined(*impl_->expr);
    });
}

Result<std::string> render(std::string_view text, const Origin& origin, Context& ctx) {
    SF_TRY(t, Template::parse(text, origin));
    return t.render(ctx);
}

Result<Value> evaluate(std::string_view expr, const Origin& origin, const Context& ctx) {
    SF_TRY(e, Expression::parse(expr, origin));
    return e.evaluate(ctx);
}

}  // namespace sf::jinja
