#pragma once
// The value model of our Jinja2 subset: Python-like dynamic values.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/error.hpp"

namespace sf::jinja {

class Value;
using List = std::vector<Value>;
// Insertion-ordered dict (Python 3.7+ semantics): keys are strings.
using Dict = std::vector<std::pair<std::string, Value>>;
using KwArgs = std::vector<std::pair<std::string, Value>>;
// A callable: positional args, keyword args. Errors carry no location; the
// evaluator adds the call site.
using Function = std::function<Result<Value>(const List& args, const KwArgs& kwargs)>;

struct Undefined {
    std::string name;  // what was looked up, for error messages
};
struct None {};

class Value {
public:
    using Storage = std::variant<Undefined, None, bool, std::int64_t, double, std::string,
                                 std::shared_ptr<List>, std::shared_ptr<Dict>,
                                 std::shared_ptr<Function>>;

    Value() : v_(None{}) {}
    Value(None) : v_(None{}) {}
    Value(Undefined u) : v_(std::move(u)) {}
    Value(bool b) : v_(b) {}
    Value(int i) : v_(static_cast<std::int64_t>(i)) {}
    Value(std::int64_t i) : v_(i) {}
    Value(double d) : v_(d) {}
    Value(const char* s) : v_(std::string(s)) {}
    Value(std::string s) : v_(std::move(s)) {}
    Value(List l) : v_(std::make_shared<List>(std::move(l))) {}
    Value(Dict d) : v_(std::make_shared<Dict>(std::move(d))) {}
    Value(Function f) : v_(std::make_shared<Function>(std::move(f))) {}

    bool is_undefined() const { return std::holds_alternative<Undefined>(v_); }
    bool is_none() const { return std::holds_alternative<None>(v_); }
    bool is_bool() const { return std::holds_alternative<bool>(v_); }
    bool is_int() const { return std::holds_alternative<std::int64_t>(v_); }
    bool is_float() const { return std::holds_alternative<double>(v_); }
    bool is_string() const { return std::holds_alternative<std::string>(v_); }
    bool is_list() const { return std::holds_alternative<std::shared_ptr<List>>(v_); }
    bool is_dict() const { return std::holds_alternative<std::shared_ptr<Dict>>(v_); }
    bool is_callable() const { return std::holds_alternative<std::shared_ptr<Function>>(v_); }

    bool as_bool() const { return std::get<bool>(v_); }
    std::int64_t as_int() const { return std::get<std::int64_t>(v_); }
    double as_float() const { return std::get<double>(v_); }
    const std::string& as_string() const { return std::get<std::string>(v_); }
    const List& as_list() const { return *std::get<std::shared_ptr<List>>(v_); }
    const Dict& as_dict() const { return *std::get<std::shared_ptr<Dict>>(v_); }
    const Function& as_callable() const { return *std::get<std::shared_ptr<Function>>(v_); }
    const std::string& undefined_name() const { return std::get<Undefined>(v_).name; }

    // Python truthiness: None/False/0/0.0/""/[]/{} are false. Undefined is false.
    bool truthy() const;
    // Python str(): True, None, 3.0, ['a', 1], {'k': 'v'}. Undefined renders "".
    std::string str() const;
    // Python repr(): strings quoted with single quotes as Python does.
    std::string repr() const;
    // Python ==, with 1 == 1.0 == True.
    bool equals(const Value& other) const;
    // Dict lookup by key; nullptr when absent or not a dict.
    const Value* get(const std::string& key) const;
    const char* type_name() const;  // "str", "int", "list", ... as Python names them

    const Storage& storage() const { return v_; }

private:
    Storage v_;
};

}  // namespace sf::jinja
