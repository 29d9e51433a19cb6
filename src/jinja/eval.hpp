#pragma once
// Tree-walking evaluator for the AST in parser.hpp.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "jinja/jinja.hpp"
#include "jinja/parser.hpp"

namespace sf::jinja::detail {

using Globals = std::map<std::string, Value, std::less<>>;

class Evaluator {
public:
    // `writable` receives top-level {% set %}s; it may alias `globals`, or be
    // null for pure expression evaluation.
    // Names missing from `globals` are looked up in `base` and its bases.
    Evaluator(const std::string& file, const Globals& globals, Globals* writable, Undefinedness mode,
              const Context* base = nullptr, Hooks hooks = {})
        : file_(file), globals_(globals), writable_(writable), base_(base), lenient_(mode == Undefinedness::lenient),
          at_use_(mode == Undefinedness::at_use), hooks_(hooks) {}

    Result<Value> eval(const Expr& e);
    // eval(), and under Undefinedness::at_use an undefined value is an error.
    Result<Value> eval_defined(const Expr& e);
    Result<void> exec(const Body& body, std::string& out);

private:
    struct Frame {
        std::vector<std::pair<std::string, Value>> vars;
    };

    const std::string& file_;
    const Globals& globals_;
    Globals* writable_;
    const Context* base_;
    bool lenient_;
    bool at_use_;  // Undefinedness::at_use
    Hooks hooks_;
    std::vector<Frame> frames_;
    std::uint64_t work_ = 0;

    SourceLoc at(int line, int col) const { return SourceLoc{file_, line, col}; }
    SourceLoc at(const Expr& e) const { return at(e.line, e.col); }
    Result<void> charge(std::uint64_t units, const Expr& e);
    Unexpected<Error> undefined_error(const Value& v, const Expr& e) const;
    // Under at_use: fails when `v` (the value of `e`) is an undefined one.
    Result<void> used(const Value& v, const Expr& e) const;
    Result<bool> truth(const Value& v, const Expr& e) const;
    Result<Value> locate(Result<Value> r, const Expr& e) const;

    Result<Value> lookup(const Expr& e, bool probe);
    Result<Value> eval_probe(const Expr& e);  // unknown names -> Undefined (default, is defined)
    // Under at_use an undefined argument is an error unless `undefined_ok`.
    Result<void> eval_args(const Expr& e, List& args, KwArgs& kwargs, bool undefined_ok = false);
    Result<Value> binary(const std::string& op, const Value& l, const Value& r, const Expr& e);
    Result<bool> compare_op(const std::string& op, const Value& l, const Value& r, const Expr& e,
                            std::pair<int, int> where);
    Result<Value> get_attr(const Value& obj, const std::string& name, const Expr& e, bool probe);
    Result<Value> get_item(const Value& obj, const Value& key, const Expr& e, bool probe);
    Result<Value> slice(const Value& obj, const Value& start, const Value& stop, const Value& step,
                        const Expr& e);
    Result<Value> call(const Expr& e);
    Result<Value> invoke(const Value& fn, const List& args, const KwArgs& kwargs, const Expr& e);
    Result<Value> filter(const Expr& e);
    Result<Value> test(const Expr& e);

    void assign(const std::string& name, Value v);
    Result<void> assign_targets(const std::vector<std::string>& targets, const Value& v, int line, int col);
    Result<void> exec_for(const Node& n, std::string& out);
    Result<void> emit(const Value& v, std::string& out, const Node& n);
};

}  // namespace sf::jinja::detail
