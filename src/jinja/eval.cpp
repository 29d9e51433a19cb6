// Evaluation of expressions and statements with Python semantics.
#include "jinja/eval.hpp"

#include <cmath>
#include <exception>
#include <limits>

#include "jinja/internal.hpp"

namespace sf::jinja::detail {
namespace {

std::int64_t as_i64(const Value& v) { return v.is_bool() ? std::int64_t(v.as_bool()) : v.as_int(); }
bool is_intlike(const Value& v) { return v.is_int() || v.is_bool(); }

Unexpected<Error> unsupported(const std::string& op, const Value& l, const Value& r) {
    return fail("unsupported operand type(s) for " + op + ": '" + l.type_name() + "' and '" +
                r.type_name() + "'");
}

Result<Value> int_pow(std::int64_t base, std::int64_t exp) {
    std::int64_t result = 1;
    while (exp > 0) {
        if (exp & 1)
            if (__builtin_mul_overflow(result, base, &result)) return fail("integer overflow in '**'");
        exp >>= 1;
        if (exp > 0 && __builtin_mul_overflow(base, base, &base)) {
            // Only a problem if the squared base is still needed.
            return fail("integer overflow in '**'");
        }
    }
    return Value(result);
}

Result<Value> repeat(const Value& seq, std::int64_t n) {
    if (n < 0) n = 0;
    if (seq.is_string()) {
        const std::string& s = seq.as_string();
        if (!s.empty() && static_cast<std::uint64_t>(n) > kMaxString / s.size())
            return fail("string result is too long");
        std::string out;
        out.reserve(s.size() * static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) out += s;
        return Value(std::move(out));
    }
    const List& l = seq.as_list();
    if (!l.empty() && static_cast<std::uint64_t>(n) > kMaxList / l.size())
        return fail("list result is too long");
    List out;
    out.reserve(l.size() * static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) out.insert(out.end(), l.begin(), l.end());
    return Value(std::move(out));
}

}  // namespace

Result<void> Evaluator::charge(std::uint64_t units, const Expr& e) {
    work_ += units + 1;
    if (work_ > kMaxWork)
        return fail(at(e), "template evaluation is too expensive",
                    "more than " + std::to_string(kMaxWork) + " steps; is a loop running away?");
    return {};
}

Unexpected<Error> Evaluator::undefined_error(const Value& v, const Expr& e) const {
    std::string name = v.is_undefined() ? v.undefined_name() : std::string();
    if (name.empty()) return fail(at(e), "undefined value used");
    return fail(at(e), "'" + name + "' is undefined",
                "set it with '{% set " + name + " = ... %}' or provide it as a variable");
}

// `x if c` with no else gives an unnamed (silent) undefined, which at_use lets pass.
Result<void> Evaluator::used(const Value& v, const Expr& e) const {
    if (at_use_ && v.is_undefined() && !v.undefined_name().empty()) return undefined_error(v, e);
    return {};
}

Result<bool> Evaluator::truth(const Value& v, const Expr& e) const {
    SF_TRY_VOID(used(v, e));
    return v.truthy();
}

Result<Value> Evaluator::eval_defined(const Expr& e) {
    SF_TRY(v, eval(e));
    SF_TRY_VOID(used(v, e));
    return v;
}

Result<Value> Evaluator::locate(Result<Value> r, const Expr& e) const {
    if (!r && r.error().loc.line == 0) {
        Error err = r.error();
        err.loc = at(e);
        return Unexpected<Error>{std::move(err)};
    }
    return r;
}

// ---- names ----------------------------------------------------------------

Result<Value> Evaluator::lookup(const Expr& e, bool probe) {
    for (auto f = frames_.rbegin(); f != frames_.rend(); ++f)
        for (const auto& [k, v] : f->vars)
            if (k == e.name) return v;
    if (hooks_.accessed) hooks_.accessed->insert(e.name);
    if (auto it = globals_.find(e.name); it != globals_.end()) return it->second;
    for (const Context* c = base_; c; c = c->base)
        if (auto it = c->globals.find(e.name); it != c->globals.end()) return it->second;
    if (const Value* b = builtin_global(e.name)) return *b;
    Value u{Undefined{e.name}};
    if (lenient_ || probe || at_use_) return u;
    return undefined_error(u, e);
}

Result<Value> Evaluator::eval_probe(const Expr& e) {
    SF_TRY_VOID(charge(0, e));
    switch (e.kind) {
    case ExprKind::name: return lookup(e, true);
    case ExprKind::getattr: {
        SF_TRY(obj, eval_probe(*e.kids[0]));
        return get_attr(obj, e.name, e, true);
    }
    case ExprKind::getitem: {
        SF_TRY(obj, eval_probe(*e.kids[0]));
        SF_TRY(key, eval(*e.kids[1]));
        return get_item(obj, key, e, true);
    }
    default: return eval(e);
    }
}

// ---- expressions ----------------------------------------------------------

Result<Value> Evaluator::eval(const Expr& e) {
    SF_TRY_VOID(charge(0, e));
    switch (e.kind) {
    case ExprKind::literal: return e.value;
    case ExprKind::name: return lookup(e, false);
    case ExprKind::list: {
        List items;
        items.reserve(e.kids.size());
        for (const auto& k : e.kids) {
            SF_TRY(v, eval(*k));
            items.push_back(std::move(v));
        }
        return Value(std::move(items));
    }
    case ExprKind::dict: {
        Dict d;
        for (std::size_t i = 0; i + 1 < e.kids.size(); i += 2) {
            SF_TRY(k, eval(*e.kids[i]));
            if (!k.is_string())
                return fail(at(*e.kids[i]), std::string("dict keys must be strings, not ") + k.type_name());
            SF_TRY(v, eval(*e.kids[i + 1]));
            bool replaced = false;
            for (auto& kv : d)
                if (kv.first == k.as_string()) { kv.second = v; replaced = true; }
            if (!replaced) d.emplace_back(k.as_string(), std::move(v));
        }
        return Value(std::move(d));
    }
    case ExprKind::neg:
    case ExprKind::pos: {
        SF_TRY(v, eval(*e.kids[0]));
        const char* op = e.kind == ExprKind::neg ? "-" : "+";
        if (v.is_undefined()) {
            if (lenient_) return v;
            return undefined_error(v, *e.kids[0]);
        }
        if (v.is_float()) return Value(e.kind == ExprKind::neg ? -v.as_float() : v.as_float());
        if (is_intlike(v)) {
            std::int64_t i = as_i64(v);
            if (e.kind == ExprKind::pos) return Value(i);
            if (i == std::numeric_limits<std::int64_t>::min()) return fail(at(e), "integer overflow in unary '-'");
            return Value(-i);
        }
        return fail(at(e), std::string("bad operand type for unary ") + op + ": '" + v.type_name() + "'");
    }
    case ExprKind::not_: {
        SF_TRY(v, eval(*e.kids[0]));
        SF_TRY(t, truth(v, *e.kids[0]));
        return Value(!t);
    }
    case ExprKind::and_:
    case ExprKind::or_: {
        SF_TRY(l, eval(*e.kids[0]));
        SF_TRY(t, truth(l, *e.kids[0]));
        if (t == (e.kind == ExprKind::or_)) return l;
        return eval(*e.kids[1]);
    }
    case ExprKind::cond: {
        SF_TRY(c, eval(*e.kids[1]));
        SF_TRY(t, truth(c, *e.kids[1]));
        if (t) return eval(*e.kids[0]);
        if (e.kids[2]) return eval(*e.kids[2]);
        return Value(Undefined{});
    }
    case ExprKind::binary: {
        SF_TRY(l, eval(*e.kids[0]));
        SF_TRY(r, eval(*e.kids[1]));
        SF_TRY_VOID(charge(shallow_size(l) + shallow_size(r), e));
        SF_TRY(v, binary(e.name, l, r, e));
        SF_TRY_VOID(charge(shallow_size(v), e));
        return v;
    }
    case ExprKind::compare: {
        SF_TRY(left, eval(*e.kids[0]));
        for (std::size_t i = 0; i < e.ops.size(); ++i) {
            SF_TRY(right, eval(*e.kids[i + 1]));
            SF_TRY_VOID(used(left, *e.kids[i]));
            SF_TRY_VOID(used(right, *e.kids[i + 1]));
            SF_TRY_VOID(charge(shallow_size(left) + shallow_size(right), e));
            SF_TRY(ok, compare_op(e.ops[i], left, right, e, e.op_locs[i]));
            if (!ok) return Value(false);
            left = std::move(right);
        }
        return Value(true);
    }
    case ExprKind::getattr: {
        SF_TRY(obj, eval(*e.kids[0]));
        return get_attr(obj, e.name, e, false);
    }
    case ExprKind::getitem: {
        SF_TRY(obj, eval(*e.kids[0]));
        SF_TRY(key, eval(*e.kids[1]));
        return get_item(obj, key, e, false);
    }
    case ExprKind::slice: {
        SF_TRY(obj, eval(*e.kids[0]));
        Value parts[3];
        for (int i = 0; i < 3; ++i) {
            if (!e.kids[i + 1]) continue;
            SF_TRY(p, eval(*e.kids[i + 1]));
            parts[i] = std::move(p);
        }
        SF_TRY(v, slice(obj, parts[0], parts[1], parts[2], e));
        SF_TRY_VOID(charge(shallow_size(v), e));
        return v;
    }
    case ExprKind::call: return call(e);
    case ExprKind::filter: return filter(e);
    case ExprKind::test: return test(e);
    }
    return fail(at(e), "internal error: unknown expression");
}

Result<Value> Evaluator::binary(const std::string& op, const Value& l, const Value& r, const Expr& e) {
    if (op == "~") {
        SF_TRY_VOID(used(l, *e.kids[0]));
        SF_TRY_VOID(used(r, *e.kids[1]));
        std::string s;
        if (hooks_.display) {
            s = hooks_.display(l) + hooks_.display(r);
            if (s.size() > kMaxString) return fail(at(e), "string result is too long");
            return Value(std::move(s));
        }
        if (!str_into(l, s, kMaxString) || !str_into(r, s, kMaxString))
            return fail(at(e), "string result is too long");
        return Value(std::move(s));
    }
    if (l.is_undefined() || r.is_undefined()) {
        if (lenient_) return Value(Undefined{l.is_undefined() ? l.undefined_name() : r.undefined_name()});
        return undefined_error(l.is_undefined() ? l : r, l.is_undefined() ? *e.kids[0] : *e.kids[1]);
    }
    const bool nums = is_number(l) && is_number(r);
    const bool ints = is_intlike(l) && is_intlike(r);
    auto overflow = [&] { return fail(at(e), "integer overflow in '" + op + "'"); };
    if (op == "+") {
        if (ints) {
            std::int64_t v;
            if (__builtin_add_overflow(as_i64(l), as_i64(r), &v)) return overflow();
            return Value(v);
        }
        if (nums) return Value(to_double(l) + to_double(r));
        if (l.is_string() && r.is_string()) {
            if (l.as_string().size() + r.as_string().size() > kMaxString)
                return fail(at(e), "string result is too long");
            return Value(l.as_string() + r.as_string());
        }
        if (l.is_list() && r.is_list()) {
            if (l.as_list().size() + r.as_list().size() > kMaxList) return fail(at(e), "list result is too long");
            List out = l.as_list();
            out.insert(out.end(), r.as_list().begin(), r.as_list().end());
            return Value(std::move(out));
        }
    } else if (op == "-") {
        if (ints) {
            std::int64_t v;
            if (__builtin_sub_overflow(as_i64(l), as_i64(r), &v)) return overflow();
            return Value(v);
        }
        if (nums) return Value(to_double(l) - to_double(r));
    } else if (op == "*") {
        if (ints) {
            std::int64_t v;
            if (__builtin_mul_overflow(as_i64(l), as_i64(r), &v)) return overflow();
            return Value(v);
        }
        if (nums) return Value(to_double(l) * to_double(r));
        if ((l.is_string() || l.is_list()) && is_intlike(r)) return locate(repeat(l, as_i64(r)), e);
        if ((r.is_string() || r.is_list()) && is_intlike(l)) return locate(repeat(r, as_i64(l)), e);
    } else if (op == "/") {
        if (nums) {
            if (to_double(r) == 0.0) return fail(at(e), "division by zero");
            return Value(to_double(l) / to_double(r));
        }
    } else if (op == "//" || op == "%") {
        if (op == "%" && l.is_string()) {
            auto s = percent_format(l.as_string(), r);
            if (!s) return locate(Unexpected<Error>{s.error()}, e);
            return Value(std::move(*s));
        }
        if (ints) {
            std::int64_t a = as_i64(l), b = as_i64(r);
            if (b == 0) return fail(at(e), "division by zero");
            if (a == std::numeric_limits<std::int64_t>::min() && b == -1) {
                if (op == "%") return Value(std::int64_t(0));
                return overflow();
            }
            std::int64_t q = a / b, m = a % b;
            if (m != 0 && ((m < 0) != (b < 0))) { --q; m += b; }
            return Value(op == "//" ? q : m);
        }
        if (nums) {
            double a = to_double(l), b = to_double(r);
            if (b == 0.0) return fail(at(e), "division by zero");
            if (op == "//") return Value(std::floor(a / b));
            double m = std::fmod(a, b);
            if (m != 0.0 && ((m < 0) != (b < 0))) m += b;
            return Value(m);
        }
    } else if (op == "**") {
        if (ints && as_i64(r) >= 0) return locate(int_pow(as_i64(l), as_i64(r)), e);
        if (nums) {
            double a = to_double(l), b = to_double(r);
            if (a == 0.0 && b < 0) return fail(at(e), "0.0 cannot be raised to a negative power");
            return Value(std::pow(a, b));
        }
    }
    return fail(at(e), unsupported(op, l, r).error.message);
}

Result<bool> Evaluator::compare_op(const std::string& op, const Value& l, const Value& r, const Expr& e,
                                   std::pair<int, int> where) {
    // Deep comparisons are paid for from the evaluation budget.
    const std::size_t budget0 = work_ < kMaxWork ? kMaxWork - work_ : 0;
    std::size_t budget = budget0;
    struct Pay {
        Evaluator& ev;
        const std::size_t& b0;
        const std::size_t& b;
        ~Pay() { ev.work_ += b0 - b; }
    } pay{*this, budget0, budget};
    if (op == "==" || op == "!=") {
        bool eq = equals_within(l, r, budget);
        if (budget == 0) {
            Error err = too_expensive().error;
            err.loc = at(where.first, where.second);
            return Unexpected<Error>{std::move(err)};
        }
        return eq == (op == "==");
    }
    if (op == "in" || op == "not in") {
        if (r.is_undefined() && !lenient_) return undefined_error(r, *e.kids[0]);
        auto c = contains(r, l, budget);
        if (!c) return fail(at(where.first, where.second), c.error().message, c.error().hint);
        return op == "in" ? *c : !*c;
    }
    if (l.is_undefined() || r.is_undefined()) {
        if (lenient_) return false;
        return undefined_error(l.is_undefined() ? l : r, *e.kids[0]);
    }
    auto c = compare(l, r, op.c_str(), budget);
    if (!c) return fail(at(where.first, where.second), c.error().message, c.error().hint);
    if (op == "<") return *c < 0;
    if (op == "<=") return *c <= 0;
    if (op == ">") return *c > 0;
    return *c >= 0;
}

Result<Value> Evaluator::get_attr(const Value& obj, const std::string& name, const Expr& e, bool probe) {
    if (obj.is_undefined()) {
        if (lenient_ || probe) return Value(Undefined{obj.undefined_name() + "." + name});
        return undefined_error(obj, *e.kids[0]);
    }
    if (const Value* v = obj.get(name)) return *v;
    if (has_method(obj, name)) {
        Value self = obj;
        std::string method = name;
        return Value(Function([self, method](const List& args, const KwArgs& kwargs) {
            bool found = false;
            return call_method(self, method, args, kwargs, found);
        }));
    }
    if (lenient_ || probe) return Value(Undefined{name});
    return fail(at(e), std::string("'") + obj.type_name() + "' object has no attribute '" + name + "'");
}

Result<Value> Evaluator::get_item(const Value& obj, const Value& key, const Expr& e, bool probe) {
    const bool soft = lenient_ || probe;
    if (obj.is_undefined()) {
        if (soft) return Value(Undefined{obj.undefined_name() + "[" + key.repr() + "]"});
        return undefined_error(obj, *e.kids[0]);
    }
    if (obj.is_dict()) {
        if (key.is_string())
            if (const Value* v = obj.get(key.as_string())) return *v;
        if (soft) return Value(Undefined{key.str()});
        return fail(at(e), "key " + key.repr() + " not found in dict");
    }
    if (obj.is_list() || obj.is_string()) {
        if (!is_intlike(key))
            return fail(at(e), std::string(obj.is_list() ? "list" : "string") +
                                   " indices must be integers, not " + key.type_name());
        auto n = static_cast<std::int64_t>(obj.is_list() ? obj.as_list().size() : obj.as_string().size());
        std::int64_t i = as_i64(key);
        if (i < 0) i += n;
        if (i < 0 || i >= n) {
            if (soft) return Value(Undefined{});
            return fail(at(e), std::string(obj.is_list() ? "list" : "string") + " index out of range");
        }
        if (obj.is_list()) return obj.as_list()[static_cast<std::size_t>(i)];
        return Value(std::string(1, obj.as_string()[static_cast<std::size_t>(i)]));
    }
    return fail(at(e), std::string("'") + obj.type_name() + "' object is not subscriptable");
}

Result<Value> Evaluator::slice(const Value& obj, const Value& start, const Value& stop, const Value& step,
                               const Expr& e) {
    if (obj.is_undefined()) {
        if (lenient_) return obj;
        return undefined_error(obj, *e.kids[0]);
    }
    if (!obj.is_list() && !obj.is_string())
        return fail(at(e), std::string("'") + obj.type_name() + "' object is not subscriptable");
    for (const Value* p : {&start, &stop, &step})
        if (!p->is_none() && !is_intlike(*p))
            return fail(at(e), "slice indices must be integers or None");
    const std::int64_t n = static_cast<std::int64_t>(obj.is_list() ? obj.as_list().size() : obj.as_string().size());
    std::int64_t st = step.is_none() ? 1 : as_i64(step);
    if (st == 0) return fail(at(e), "slice step cannot be zero");
    auto adjust = [&](const Value& v, std::int64_t dflt) {
        if (v.is_none()) return dflt;
        std::int64_t i = as_i64(v);
        if (i < 0) {
            i = i < -n ? -1 : i + n;  // -1 here means "before the start"
            if (i < 0) i = st < 0 ? -1 : 0;
        } else if (i >= n) {
            i = st < 0 ? n - 1 : n;
        }
        return i;
    };
    std::int64_t b = adjust(start, st > 0 ? 0 : n - 1);
    std::int64_t en = adjust(stop, st > 0 ? n : -1);
    std::vector<std::size_t> idx;
    for (__int128 i = b; st > 0 ? i < en : i > en; i += st) idx.push_back(static_cast<std::size_t>(i));
    if (obj.is_string()) {
        std::string out;
        out.reserve(idx.size());
        for (auto i : idx) out += obj.as_string()[i];
        return Value(std::move(out));
    }
    List out;
    out.reserve(idx.size());
    for (auto i : idx) out.push_back(obj.as_list()[i]);
    return Value(std::move(out));
}

// ---- calls, filters, tests ------------------------------------------------

Result<void> Evaluator::eval_args(const Expr& e, List& args, KwArgs& kwargs, bool undefined_ok) {
    args.reserve(e.npos);
    for (std::size_t i = 1; i < e.kids.size(); ++i) {
        SF_TRY(v, eval(*e.kids[i]));
        if (!undefined_ok) SF_TRY_VOID(used(v, *e.kids[i]));
        if (i <= e.npos) args.push_back(std::move(v));
        else kwargs.emplace_back(e.kwnames[i - 1 - e.npos], std::move(v));
    }
    return {};
}

Result<Value> Evaluator::invoke(const Value& fn, const List& args, const KwArgs& kwargs, const Expr& e) {
    if (fn.is_undefined()) {
        if (lenient_) return fn;
        return undefined_error(fn, *e.kids[0]);
    }
    const Expr& where = *e.kids[0];  // errors point at the function's name
    if (!fn.is_callable()) return fail(at(where), std::string("'") + fn.type_name() + "' object is not callable");
    try {
        return locate(fn.as_callable()(args, kwargs), where);
    } catch (const ErrorException& f) {
        // A function that unwinds with an Error (Failure or RuntimeError):
        // its error, at the call when it names no line.
        Error err = f.error();
        if (err.loc.line == 0) err.loc = at(where);
        return Unexpected<Error>{std::move(err)};
    } catch (const std::exception& ex) {
        return fail(at(where), std::string("error in function call: ") + ex.what());
    } catch (...) {
        return fail(at(where), "error in function call");
    }
}

Result<Value> Evaluator::call(const Expr& e) {
    const Expr& callee = *e.kids[0];
    List args;
    KwArgs kwargs;
    if (callee.kind == ExprKind::getattr) {
        // obj.method(...): call the method directly, without a bound function.
        SF_TRY(obj, eval(*callee.kids[0]));
        if (!obj.is_dict() || !obj.get(callee.name)) {
            if (has_method(obj, callee.name)) {
                SF_TRY_VOID(eval_args(e, args, kwargs));
                bool found = false;
                SF_TRY(v, locate(call_method(obj, callee.name, args, kwargs, found), callee));
                SF_TRY_VOID(charge(shallow_size(obj) + shallow_size(v), e));
                return v;
            }
        }
        SF_TRY(fn, get_attr(obj, callee.name, callee, false));
        SF_TRY_VOID(eval_args(e, args, kwargs));
        return invoke(fn, args, kwargs, e);
    }
    SF_TRY(fn, eval(callee));
    const bool undefined_ok =
        callee.kind == ExprKind::name && hooks_.undefined_ok && hooks_.undefined_ok->count(callee.name);
    SF_TRY_VOID(eval_args(e, args, kwargs, undefined_ok));
    SF_TRY(v, invoke(fn, args, kwargs, e));
    SF_TRY_VOID(charge(shallow_size(v), e));
    return v;
}

Result<Value> Evaluator::filter(const Expr& e) {
    const bool is_default = e.name == "default" || e.name == "d";
    auto input_r = is_default ? eval_probe(*e.kids[0]) : eval(*e.kids[0]);
    if (!input_r) return input_r;
    Value input = std::move(*input_r);
    if (input.is_undefined() && !is_default && !lenient_) return undefined_error(input, *e.kids[0]);
    List args;
    KwArgs kwargs;
    SF_TRY_VOID(eval_args(e, args, kwargs));
    if (hooks_.filters)
        if (auto it = hooks_.filters->find(e.name); it != hooks_.filters->end()) {
            args.insert(args.begin(), input);
            SF_TRY(v, locate(it->second(args, kwargs), e));
            return v;
        }
    SF_TRY(v, locate(apply_filter(e.name, e.filter_fn, input, args, kwargs), e));
    SF_TRY_VOID(charge(shallow_size(input) + shallow_size(v), e));
    return v;
}

Result<Value> Evaluator::test(const Expr& e) {
    const bool probe = e.name == "defined" || e.name == "undefined" || e.name == "none";
    auto input_r = probe ? eval_probe(*e.kids[0]) : eval(*e.kids[0]);
    if (!input_r) return input_r;
    List args;
    KwArgs kwargs;
    SF_TRY_VOID(eval_args(e, args, kwargs));
    if (!kwargs.empty()) return fail(at(e), "tests take no keyword arguments");
    auto r = apply_test(e.name, e.test_fn, *input_r, args);
    if (!r) return locate(Unexpected<Error>{r.error()}, e);
    return Value(*r != e.negated);
}

// ---- statements -----------------------------------------------------------

void Evaluator::assign(const std::string& name, Value v) {
    if (frames_.empty()) {
        if (writable_) (*writable_)[name] = std::move(v);
        return;
    }
    for (auto& kv : frames_.back().vars) {
        if (kv.first == name) {
            kv.second = std::move(v);
            return;
        }
    }
    frames_.back().vars.emplace_back(name, std::move(v));
}

Result<void> Evaluator::assign_targets(const std::vector<std::string>& targets, const Value& v, int line,
                                       int col) {
    if (targets.size() == 1) {
        assign(targets[0], v);
        return {};
    }
    auto items = iterate(v);
    if (!items || v.is_undefined())
        return fail(at(line, col), std::string("cannot unpack non-iterable ") + v.type_name() + " object");
    if (items->size() != targets.size()) {
        std::string expected = std::to_string(targets.size());
        if (items->size() > targets.size())
            return fail(at(line, col), "too many values to unpack (expected " + expected + ")");
        return fail(at(line, col), "not enough values to unpack (expected " + expected + ", got " +
                                       std::to_string(items->size()) + ")");
    }
    for (std::size_t i = 0; i < targets.size(); ++i) assign(targets[i], (*items)[i]);
    return {};
}

Result<void> Evaluator::emit(const Value& v, std::string& out, const Node& n) {
    if (!str_into(v, out, kMaxOutput) || out.size() > kMaxOutput)
        return fail(at(n.line, n.col), "rendered output is too large");
    return {};
}

Result<void> Evaluator::exec_for(const Node& n, std::string& out) {
    SF_TRY(seq, eval(*n.expr));
    if (seq.is_undefined() && !lenient_) return undefined_error(seq, *n.expr);
    auto items_r = iterate(seq);
    if (!items_r) return fail(at(*n.expr), items_r.error().message);
    List items = std::move(*items_r);
    SF_TRY_VOID(charge(items.size(), *n.expr));

    struct FramePop {
        std::vector<Frame>& frames;
        ~FramePop() { frames.pop_back(); }
    };
    frames_.emplace_back();
    FramePop pop{frames_};
    const std::size_t me = frames_.size() - 1;

    if (n.filter) {
        List kept;
        for (auto& item : items) {
            frames_[me].vars.clear();
            SF_TRY_VOID(assign_targets(n.targets, item, n.line, n.col));
            SF_TRY(keep, eval(*n.filter));
            SF_TRY(t, truth(keep, *n.filter));
            if (t) kept.push_back(std::move(item));
        }
        items = std::move(kept);
    }
    const auto len = static_cast<std::int64_t>(items.size());
    for (std::int64_t i = 0; i < len; ++i) {
        frames_[me].vars.clear();
        SF_TRY_VOID(charge(1, *n.expr));
        SF_TRY_VOID(assign_targets(n.targets, items[static_cast<std::size_t>(i)], n.line, n.col));
        Dict loop;
        loop.reserve(7);
        loop.emplace_back("index", Value(i + 1));
        loop.emplace_back("index0", Value(i));
        loop.emplace_back("revindex", Value(len - i));
        loop.emplace_back("revindex0", Value(len - i - 1));
        loop.emplace_back("first", Value(i == 0));
        loop.emplace_back("last", Value(i == len - 1));
        loop.emplace_back("length", Value(len));
        frames_[me].vars.emplace_back("loop", Value(std::move(loop)));
        SF_TRY_VOID(exec(n.body, out));
    }
    if (len == 0 && !n.else_body.empty()) {
        frames_[me].vars.clear();
        SF_TRY_VOID(exec(n.else_body, out));
    }
    return {};
}

Result<void> Evaluator::exec(const Body& body, std::string& out) {
    for (const auto& np : body) {
        const Node& n = *np;
        switch (n.kind) {
        case NodeKind::text:
            out += n.text;
            if (out.size() > kMaxOutput) return fail(at(n.line, n.col), "rendered output is too large");
            break;
        case NodeKind::output: {
            SF_TRY(v, eval_defined(*n.expr));
            SF_TRY_VOID(emit(v, out, n));
            break;
        }
        case NodeKind::set: {
            SF_TRY(v, eval(*n.expr));
            SF_TRY_VOID(assign_targets(n.targets, v, n.line, n.col));
            break;
        }
        case NodeKind::set_block: {
            std::string captured;
            SF_TRY_VOID(exec(n.body, captured));
            assign(n.targets[0], Value(std::move(captured)));
            break;
        }
        case NodeKind::if_:
            for (const auto& br : n.branches) {
                bool take = true;
                if (br.cond) {
                    SF_TRY(c, eval(*br.cond));
                    SF_TRY(t, truth(c, *br.cond));
                    take = t;
                }
                if (take) {
                    SF_TRY_VOID(exec(br.body, out));
                    break;
                }
            }
            break;
        case NodeKind::for_:
            SF_TRY_VOID(exec_for(n, out));
            break;
        }
    }
    return {};
}

}  // namespace sf::jinja::detail
