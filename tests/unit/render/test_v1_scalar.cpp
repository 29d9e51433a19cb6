// How rattler-build types an untyped YAML scalar (render/v1_scalar.hpp), one
// row per input. Where each answer comes from:
// - marked_yaml: rattler-build's VariableConverter (variant_config/
//   variable_converter.rs) and parse_scalar_to_variable (recipe stage0
//   parser/mod.rs) take a plain scalar's as_bool(), then as_i64(), else its
//   text; marked_yaml's as_bool is the six spellings of true/false
//   (types.rs), as_i64 Rust's i64::from_str (an optional sign and decimal
//   digits, nothing else). marked_yaml resolves no nulls, so `~` is text.
// - serde_yaml: the legacy conda_build_config.yaml loader
//   (conda_build_config.rs) hands serde_yaml 0.9 what it did not quote;
//   de.rs's visit_untagged_scalar tries parse_null (~, null, Null, NULL,
//   nothing), parse_bool, parse_unsigned_int / parse_negative_int (0x, 0o,
//   0b, a leading '+', no leading zero: digits_but_not_number), then
//   parse_f64 (.inf/.nan spellings, else a finite Rust f64).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "render/v1_scalar.hpp"

using sf::jinja::Value;

namespace {

// "kind:value", e.g. "int:16", "str:0x10", "float:inf", "none".
std::string kind_of(const Value& v) {
    if (v.is_none()) return "none";
    if (v.is_bool()) return std::string("bool:") + (v.as_bool() ? "true" : "false");
    if (v.is_int()) return "int:" + std::to_string(v.as_int());
    if (v.is_float()) {
        double d = v.as_float();
        if (std::isnan(d)) return "float:nan";
        if (std::isinf(d)) return d < 0 ? "float:-inf" : "float:inf";
        std::string s = std::to_string(d);
        s.erase(s.find_last_not_of('0') + 1);
        if (s.back() == '.') s.pop_back();
        return "float:" + s;
    }
    if (v.is_string()) return "str:" + v.as_string();
    return "?";
}

struct Row {
    const char* text;
    const char* marked_yaml;  // variants.yaml, context:
    const char* serde_yaml;   // conda_build_config.yaml, where not quoted
};

const Row kRows[] = {
    {".inf", "str:.inf", "float:inf"},
    {"-.inf", "str:-.inf", "float:-inf"},
    {"+.INF", "str:+.INF", "float:inf"},
    {".nan", "str:.nan", "float:nan"},
    {".NaN", "str:.NaN", "float:nan"},
    {"inf", "str:inf", "str:inf"},  // Rust parses it, but serde_yaml keeps finite floats only
    {"nan", "str:nan", "str:nan"},
    {"0x10", "str:0x10", "int:16"},
    {"+0x10", "str:+0x10", "int:16"},
    {"-0x10", "str:-0x10", "int:-16"},
    {"0x-1", "str:0x-1", "str:0x-1"},
    {"0o17", "str:0o17", "int:15"},
    {"0b101", "str:0b101", "int:5"},
    {"+3", "int:3", "int:3"},
    {"-3", "int:-3", "int:-3"},
    {"-0", "int:0", "int:0"},
    {"++3", "str:++3", "str:++3"},
    {"+-3", "str:+-3", "str:+-3"},
    {"007", "int:7", "str:007"},  // YAML 1.2: a leading zero makes digits a string
    {"1_000", "str:1_000", "str:1_000"},
    {"1e3", "str:1e3", "float:1000"},
    {"3.10", "str:3.10", "float:3.1"},
    {"1.", "str:1.", "float:1"},
    {".5", "str:.5", "float:0.5"},
    {"9223372036854775807", "int:9223372036854775807", "int:9223372036854775807"},
    // Past i64: serde_yaml makes it a u64; a jinja integer here is an i64, so
    // it stays text (a departure: its hash entry is quoted).
    {"9223372036854775808", "str:9223372036854775808", "str:9223372036854775808"},
    {"~", "str:~", "none"},
    {"null", "str:null", "none"},
    {"NULL", "str:NULL", "none"},
    {"", "str:", "none"},
    {"true", "bool:true", "bool:true"},
    {"True", "bool:true", "bool:true"},
    {"FALSE", "bool:false", "bool:false"},
    {"tRUE", "str:tRUE", "str:tRUE"},
    {"yes", "str:yes", "str:yes"},
    {"no", "str:no", "str:no"},
    {"on", "str:on", "str:on"},
    {"off", "str:off", "str:off"},
};

}  // namespace

TEST_CASE("v1 scalars: marked_yaml's and serde_yaml's typing, row by row") {
    for (const auto& r : kRows) {
        SECTION(std::string("'") + r.text + "'") {
            CHECK(kind_of(sf::render::v1::marked_yaml_scalar(r.text)) == r.marked_yaml);
            CHECK(kind_of(sf::render::v1::serde_yaml_scalar(r.text)) == r.serde_yaml);
        }
    }
}
