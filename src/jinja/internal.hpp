#pragma once
// Internal helpers shared by the jinja sources (not part of the public API).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "jinja/value.hpp"

#include "core/try.hpp"

namespace sf::jinja::detail {

// Hard limits so that hostile or broken templates fail cleanly instead of
// exhausting the stack, memory or time.
inline constexpr int kMaxDepth = 256;                      // nesting of blocks + expressions
inline constexpr std::size_t kMaxString = 16u << 20;       // bytes in one string value
inline constexpr std::size_t kMaxList = 1u << 20;          // items in one list value
inline constexpr std::size_t kMaxOutput = 64u << 20;       // bytes rendered by one template
inline constexpr std::uint64_t kMaxWork = 4'000'000;       // evaluation steps per call

// Python float repr: shortest round-trip digits, "3.0", "1e-05", "inf".
std::string format_float(double d);

// str()/repr() with an output cap: returns false when `limit` was hit (the
// output is then truncated). Both also stop recursing into very deep values.
bool str_into(const Value& v, std::string& out, std::size_t limit);
bool repr_into(const Value& v, std::string& out, std::size_t limit);

// A rough size of a value, used to charge work for what an operation built.
std::size_t shallow_size(const Value& v);

// Builtins (registry.hpp holds the filters and tests, by name). Errors carry
// no location; the evaluator adds it.
// Calls a method on a str, list or dict. `found` is false when the type has
// no such method (the caller then reports a missing attribute).
Result<Value> call_method(const Value& self, std::string_view name, const List& args,
                          const KwArgs& kwargs, bool& found);
bool has_method(const Value& self, std::string_view name);
// Globals that Jinja provides by default (range, dict); nullptr when unknown.
const Value* builtin_global(std::string_view name);

// Python `fmt % args` (also the `format` filter): %s %r %d %i %f %g %e %x %%
// with flags, width and precision.
Result<std::string> percent_format(const std::string& fmt, const Value& args);
// Python str.format(): {} {0} {name} {{ }}, !r/!s, and [[fill]align][0][width][.prec][type].
Result<std::string> str_format(const std::string& fmt, const List& args, const KwArgs& kwargs);
Result<Value> call_str_method(const std::string& self, std::string_view name, const List& args,
                              const KwArgs& kwargs, bool& found);
bool is_str_method(std::string_view name);  // in str_methods()
Result<Value> check_string(std::string s);  // fails when longer than kMaxString

// Argument access for builtins: positional index or keyword name.
struct Args {
    const List& pos;
    const KwArgs& kw;
    const char* fname;
    const Value* get(std::size_t i, std::string_view name) const;
    Result<void> at_most(std::size_t n) const;  // counts positional + keyword
    Result<void> at_least(std::size_t n) const;
    Result<std::string> str(std::size_t i, std::string_view name) const;      // required str
    Result<std::int64_t> integer(std::size_t i, std::string_view name, std::int64_t dflt) const;
};

// Substring search that stays linear-ish for long needles (Boyer-Moore), so
// hostile inputs cannot make `in`, find() or replace() quadratic.
std::size_t find_sub(std::string_view hay, std::string_view needle, std::size_t from = 0);
std::size_t rfind_sub(std::string_view hay, std::string_view needle);

// Python semantics shared by the evaluator and the builtins.
// Each visited element costs one unit of `budget`. Values may share sub-lists,
// so a small template can describe a huge tree; the budget bounds the work.
// equals_within() returns false once the budget is spent (callers check it);
// compare() and contains() fail.
bool equals_within(const Value& a, const Value& b, std::size_t& budget);
Result<int> compare(const Value& a, const Value& b, const char* op, std::size_t& budget);  // -1/0/1
Result<bool> contains(const Value& container, const Value& item, std::size_t& budget);
Unexpected<Error> too_expensive();
// One budget per builtin call for all the comparisons it makes.
struct Budget {
    std::size_t left = kMaxWork;
};
Result<List> iterate(const Value& v);  // list items, dict keys, string chars
bool is_number(const Value& v);        // bool, int, float
double to_double(const Value& v);      // for is_number() values

}  // namespace sf::jinja::detail
