#pragma once
// A dependency of a rendered output (stage 1), as rattler-build types it: a
// match spec, or a pin on another package that is resolved once every
// output's version and build string are known. Used for requirements,
// constraints, run_exports and test requirements.
#include <memory>
#include <string>
#include <variant>

#include "core/error.hpp"
#include "types/match_spec.hpp"

namespace sf::types {

// pin_subpackage(name, min_pin, max_pin, exact) or
// pin_compatible(name, lower_bound, upper_bound, min_pin, max_pin, exact).
struct Pin {
    enum class Kind { subpackage, compatible };
    Kind kind = Kind::subpackage;
    std::string name;
    std::string min_pin = "x.x.x.x.x.x", max_pin = "x";
    std::string lower_bound, upper_bound;  // pin_compatible only (v1: either pin, as versions)
    bool exact = false;
    std::string build;  // v1's build= : a build string glob after the bounds

    friend bool operator==(const Pin&, const Pin&) = default;
};

// Text that conda-build renders as a requirement but that is no match spec
// ("src-dir-$SRC_DIR"): kept as written, so the render matches conda-build's;
// render warns about it, and a solve refuses it.
struct UnparsedSpec {
    std::string text;
    friend bool operator==(const UnparsedSpec&, const UnparsedSpec&) = default;
};

class Dependency {
public:
    // A parsed spec; `text` as written (str() gives it back untrimmed, as conda-build would).
    Dependency(MatchSpec spec, std::string text)
        : value_(Parsed{std::move(text), std::make_shared<const MatchSpec>(std::move(spec))}) {}
    explicit Dependency(MatchSpec spec) : Dependency(spec, spec.str()) {}
    explicit Dependency(Pin pin) : value_(std::move(pin)) {}
    explicit Dependency(UnparsedSpec text) : value_(std::move(text)) {}
    // A match spec from its text; errors name the spec.
    static Result<Dependency> parse(std::string_view spec);

    bool is_pin() const { return std::holds_alternative<Pin>(value_); }
    const Pin* pin() const { return std::get_if<Pin>(&value_); }
    const MatchSpec* spec() const {  // null for a pin or unparsed text
        const auto* m = std::get_if<Parsed>(&value_);
        return m ? m->spec.get() : nullptr;
    }
    // The package name as written (a pin's: the pinned package).
    std::string name() const;
    // The spec as written; a pin that was never resolved prints its bare
    // name, as conda-build prints it before finalizing.
    std::string str() const;

    friend bool operator==(const Dependency& a, const Dependency& b) { return a.str() == b.str() && a.is_pin() == b.is_pin(); }

private:
    struct Parsed {
        std::string text;
        std::shared_ptr<const MatchSpec> spec;  // shared: a recipe copies the same specs into many outputs
    };
    std::variant<Parsed, Pin, UnparsedSpec> value_;
};

// Specs from strings (run_exports.json, --meta files); the first bad one is the error.
Result<std::vector<Dependency>> parse_dependencies(const std::vector<std::string>& specs);
std::vector<std::string> dependency_strings(const std::vector<Dependency>& deps);

}  // namespace sf::types
