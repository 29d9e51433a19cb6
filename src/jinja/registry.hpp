#pragma once
// The builtins, keyed by name. Filters and tests have one table per Dialect
// (minijinja's holds Jinja2's and its own names); the parser looks a name up
// in its dialect's table once and keeps what it found in the Expr, so the
// evaluator calls it without a second lookup. str methods are one table.
#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "jinja/internal.hpp"
#include "jinja/jinja.hpp"

namespace sf::jinja::detail {

// Each takes the name it was called by: one function serves a family
// (lower/upper, first/last, lt/le/gt/ge).
using FilterFn = Result<Value> (*)(std::string_view name, const Value& input, const Args& a);
using TestFn = Result<bool> (*)(std::string_view name, const Value& input, const List& args);
using StrMethodFn = Result<Value> (*)(std::string_view name, const std::string& self, const Args& a);

template <class Fn>
struct Named {
    std::string_view name;
    Fn fn = nullptr;  // null: a name the caller implements (Hooks::filters)
};

template <class Fn>
constexpr bool by_name(const Named<Fn>& a, const Named<Fn>& b) {
    return a.name < b.name;
}

// True when `rows` is sorted by name without repeats (what find() needs).
template <class Fn, std::size_t N>
constexpr bool sorted_by_name(const std::array<Named<Fn>, N>& rows) {
    for (std::size_t i = 1; i < N; ++i)
        if (!(rows[i - 1].name < rows[i].name)) return false;
    return true;
}

// A's rows and B's, in name order (a dialect's table over another's).
template <class Fn, std::size_t N, std::size_t M>
constexpr std::array<Named<Fn>, N + M> merged(const std::array<Named<Fn>, N>& a, const std::array<Named<Fn>, M>& b) {
    std::array<Named<Fn>, N + M> out{};
    std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), by_name<Fn>);
    return out;
}

// A name-sorted table, searched by halves.
template <class Fn>
class Registry {
public:
    template <std::size_t N>
    constexpr explicit Registry(const std::array<Named<Fn>, N>& rows) : rows_(rows) {}
    const Named<Fn>* find(std::string_view name) const {
        auto it = std::lower_bound(rows_.begin(), rows_.end(), name,
                                   [](const Named<Fn>& r, std::string_view n) { return r.name < n; });
        return it != rows_.end() && it->name == name ? &*it : nullptr;
    }

private:
    std::span<const Named<Fn>> rows_;
};

const Registry<FilterFn>& filters(Dialect d);   // filters.cpp
const Registry<TestFn>& tests(Dialect d);       // builtins.cpp
const Registry<StrMethodFn>& str_methods();     // str_methods.cpp

// Runs a filter the parser resolved (`fn`; null for a caller's name that no
// hook supplied). `input` may be Undefined only in lenient mode or for default/d.
Result<Value> apply_filter(std::string_view name, FilterFn fn, const Value& input, const List& args,
                           const KwArgs& kwargs);
Result<bool> apply_test(std::string_view name, TestFn fn, const Value& input, const List& args);

}  // namespace sf::jinja::detail
