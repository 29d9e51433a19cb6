// recipe.yaml evaluation (render/v1_eval.cpp): how values become text, how
// variant files type their values, and which keys the context makes used.
#include <catch2/catch.hpp>

#include "recipe/v1_recipe.hpp"
#include "render/render.hpp"
#include "render/v1_render.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"

using namespace sf;
using namespace sf::render;

namespace {

RenderedRecipe render_text(const std::string& text, std::vector<std::pair<std::string, std::string>> overrides = {}) {
    auto r = recipe::parse_v1_recipe(text, "recipe.yaml");
    REQUIRE(r);
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    sel->overrides = std::move(overrides);
    auto rr = render_v1(*r, *sel);
    INFO((rr ? std::string() : rr.error().str()));
    REQUIRE(rr);
    return *rr;
}

// The recipe in a directory with one variant file beside it.
RenderedRecipe render_with(const std::string& recipe, const std::string& variant_file, const std::string& variants) {
    fs::TempDir tmp("sf-v1-eval");
    REQUIRE(fs::write_file_atomic(tmp.path() / "recipe.yaml", recipe));
    REQUIRE(fs::write_file_atomic(tmp.path() / variant_file, variants));
    auto sel = variant::select("linux-64", {}, {});
    REQUIRE(sel);
    auto rr = render_dir(tmp.path(), *sel);
    INFO((rr ? std::string() : rr.error().str()));
    REQUIRE(rr);
    return *rr;
}

}  // namespace

TEST_CASE("v1 text: values print as minijinja prints them") {
    auto rr = render_text(R"(package:
  name: foo
  version: 1.0
about:
  summary: '${{ [1, "a", none, true, 1.0] }}'
  description: 'd ${{ {"k": [2.5]} }} ${{ 4 / 2 }} ${{ true }} ${{ none }} ${{ "x" ~ 1.0 ~ false }}'
build:
  string: ${{ true }}
)");
    REQUIRE(rr.outputs.size() == 1);
    const auto& about = rr.outputs[0].about;
    CHECK(about.at("summary") == "[1, \"a\", None, True, 1.0]");
    CHECK(about.at("description") == "d {\"k\": [2.5]} 2.0 True None x1.0False");
    // A whole `${{ }}` is a typed value: rattler-build's Variable prints a
    // boolean as Rust does.
    CHECK(rr.outputs[0].build_string == "true");
}

TEST_CASE("v1 variant files: numbers in conda_build_config.yaml are strings, in variants.yaml integers") {
    std::string recipe = R"(package:
  name: foo
  version: 1.0
build:
  string: ${{ hash }}
requirements:
  host:
    - num ${{ num }}
    - flt ${{ flt }}
    - sci ${{ sci }}
    - flag ${{ flag }}
)";
    std::string values = "num:\n  - 3  # a comment\nflt:\n  - 3.10\nsci:\n  - 1e3\nflag:\n  - true\n";
    auto cbc = render_with(recipe, "conda_build_config.yaml", values);
    auto v1 = render_with(recipe, "variants.yaml", values);
    REQUIRE(cbc.outputs.size() == 1);
    REQUIRE(v1.outputs.size() == 1);
    // rattler-build's legacy loader quotes each `- <number>` line before
    // serde_yaml reads it; VariantConfig's own loader keeps integers typed.
    // Floats are their text in both (3.10 is a version, not 3.1).
    const auto& h1 = cbc.outputs[0].hash_input;
    const auto& h2 = v1.outputs[0].hash_input;
    CHECK(h1.at("num") == "3");
    CHECK(h2.at("num") == 3);
    CHECK(h1.at("flt") == "3.10");
    CHECK(h2.at("flt") == "3.10");
    CHECK(h1.at("sci") == "1e3");
    CHECK(h2.at("sci") == "1e3");
    CHECK(h1.at("flag") == true);
    CHECK(h2.at("flag") == true);
    CHECK(cbc.outputs[0].requirements.host.at(1).str() == "flt 3.10");
    CHECK(cbc.outputs[0].build_string != v1.outputs[0].build_string);
}

TEST_CASE("v1 context: a variant key the context reads is used by every output") {
    // rattler-build (stage0/evaluate.rs, MultiOutputRecipe::evaluate):
    // accessed_during_context joins each output's used variant, with the
    // variant's own value, whether or not the output reads the context value.
    auto rr = render_text(R"(context:
  mpi_prefix: ${{ "mpi_" ~ mpi if mpi != "nompi" else "nompi" }}
recipe:
  name: split
  version: 1.0
outputs:
  - package:
      name: reads-it
    build:
      string: ${{ mpi_prefix }}_h${{ hash }}
  - package:
      name: does-not
)",
                          {{"mpi", "openmpi"}});
    REQUIRE(rr.outputs.size() == 2);
    for (const auto& o : rr.outputs) {
        INFO(o.name);
        CHECK(o.used.count("mpi") == 1);
        CHECK(o.hash_input.at("mpi") == "openmpi");
    }
    CHECK(rr.outputs[0].build_string.substr(0, 13) == "mpi_openmpi_h");
}

TEST_CASE("v1 context: a context value shadowing a variant key counts the key only when the context reads it") {
    std::string recipe = R"(context:
  mpi: fixed
  label: ${{ mpi }}
package:
  name: foo
  version: 1.0
about:
  summary: ${{ label }}
)";
    // `label` reads the context's `mpi`; rattler-build tracks names, so the
    // variant's mpi is used, with the variant's value.
    auto rr = render_text(recipe, {{"mpi", "openmpi"}});
    REQUIRE(rr.outputs.size() == 1);
    CHECK(rr.outputs[0].about.at("summary") == "fixed");
    CHECK(rr.outputs[0].hash_input.at("mpi") == "openmpi");
    // Without `label`, the output's read of `mpi` is the context's: not used.
    auto plain = render_text(R"(context:
  mpi: fixed
package:
  name: foo
  version: 1.0
about:
  summary: ${{ mpi }}
)",
                             {{"mpi", "openmpi"}});
    CHECK(plain.outputs[0].used.count("mpi") == 0);
}

TEST_CASE("v1 requirements: the non-finalized lists are rattler-build's stage1 requirements, pins unresolved") {
    auto rr = render_text(R"(recipe:
  name: split
  version: 2.0
outputs:
  - package:
      name: liba
    requirements:
      host:
        - zlib
  - package:
      name: b
    requirements:
      run:
        - ${{ pin_subpackage('liba', exact=True) }}
        - python
)",
                          {{"zlib", "1.3"}});
    REQUIRE(rr.outputs.size() == 2);
    const auto& a = rr.outputs[0].name == "liba" ? rr.outputs[0] : rr.outputs[1];
    const auto& b = rr.outputs[0].name == "liba" ? rr.outputs[1] : rr.outputs[0];
    REQUIRE(b.nonfinal_requirements.run.size() == 2);
    CHECK(b.nonfinal_requirements.run[0].is_pin());
    CHECK(b.nonfinal_requirements.run[0].str() == "liba");
    CHECK(b.requirements.run[0].str() == "liba ==2.0 " + a.build_string);
    CHECK(b.nonfinal_requirements.run[1].str() == "python");
    REQUIRE(a.nonfinal_requirements.host.size() == 1);
    CHECK(a.nonfinal_requirements.host[0].str() == "zlib");  // a free spec stays bare until resolution
}

TEST_CASE("v1 text: the string and join filters print items as minijinja does") {
    auto rr = render_text(R"(package:
  name: foo
  version: 1.0
about:
  summary: '${{ [1, "a"] | string }}|${{ [1.0, none, true] | join(",") }}|${{ 1e20 | string }}|${{ "ab" | join("-") }}'
)");
    CHECK(rr.outputs[0].about.at("summary") == "[1, \"a\"]|1.0,None,True|100000000000000000000.0|a-b");
}

TEST_CASE("v1 context: values typed as rattler-build's with_context types them") {
    auto rr = render_text(R"(context:
  plain: ${{ 1 + 1 }}
  quoted: "${{ 1 + 1 }}"
  block: |
    ${{ 1 + 1 }}
  two: ${{ 1 }}${{ 2 }}
  yes: ${{ "tr" }}${{ "UE" }}
  text: ${{ 1 }}.${{ 2 }}
  items: ["${{ plain }}", 3, true]
package:
  name: foo
  version: 1.0
build:
  number: ${{ plain + two }}
about:
  summary: '${{ quoted ~ "|" ~ (block | trim) ~ "|" ~ (two + 1) ~ "|" ~ (yes is sameas true) ~ "|" ~ text ~ "|" ~ items }}'
)");
    REQUIRE(rr.outputs.size() == 1);
    CHECK(rr.outputs[0].build_number == 14);
    // quoted and block scalars are strings; `items` holds its text unevaluated.
    CHECK(rr.outputs[0].about.at("summary") == "2|2|13|True|1.2|[\"${{ plain }}\", 3, True]");
}

// The same values through the three places rattler-build reads them
// (test_v1_scalar.cpp has the rules row by row): variants.yaml and context
// by marked_yaml's rule; conda_build_config.yaml's `- <number>` lines quoted
// by the legacy loader, the rest by serde_yaml's. The hash input is
// rattler-build's serde_json of the typed variant (a float inf or NaN and a
// none are null there); `${{ }}` prints the typed value.
TEST_CASE("v1 variant files and context: YAML 1.2 edge values typed and printed as rattler-build does") {
    std::string recipe = R"(context:
  c_hex: 0x10
  c_plus: +3
  c_lead: 007
  c_null: ~
  c_inf: .inf
  c_big: 99999999999999999999
  c_list: [~, +3, 0o17]
package:
  name: foo
  version: 1.0
about:
  summary: "${{ c_hex }}|${{ c_plus + 1 }}|${{ c_lead + 1 }}|${{ c_null }}|${{ c_inf }}|${{ c_big }}|${{ c_list }}"
  description: "${{ k1 }}_${{ k2 }}_${{ k3 }}_${{ k4 }}_${{ k5 }}_${{ k6 }}_${{ k7 }}_${{ k8 }}_${{ k9 }}_${{ k10 }}"
)";
    std::string block = "k1:\n  - .inf\nk2:\n  - .nan\nk3:\n  - 0x10\nk4:\n  - 0o17\nk5:\n  - +3\nk6:\n  - 1_000\n"
                        "k7:\n  - 1e3\nk8:\n  - ~\nk9:\n  - yes\nk10: [3, 007]\n";
    auto cbc = render_with(recipe, "conda_build_config.yaml", block);
    auto v1 = render_with(recipe, "variants.yaml", block);
    REQUIRE(cbc.outputs.size() == 2);  // k10 has two values
    REQUIRE(v1.outputs.size() == 2);
    const auto& h1 = cbc.outputs[0].hash_input;
    const auto& h2 = v1.outputs[0].hash_input;
    // conda_build_config.yaml: serde_yaml types what the loader did not quote.
    CHECK(h1.at("k1").dump() == "null");
    CHECK(h1.at("k2").dump() == "null");
    CHECK(h1.at("k3") == 16);
    CHECK(h1.at("k4") == 15);
    CHECK(h1.at("k5") == "+3");   // a `- <number>` line: quoted
    CHECK(h1.at("k6") == "1_000");
    CHECK(h1.at("k7") == "1e3");  // quoted too
    CHECK(h1.at("k8").is_null());
    CHECK(h1.at("k9") == "yes");
    // A flow list: no selector for rattler-build's ParsedLine (no '#'), and
    // not quoted: serde_yaml's 3.
    CHECK(h1.at("k10") == 3);
    CHECK(cbc.outputs[1].hash_input.at("k10") == "007");
    CHECK(cbc.outputs[0].about.at("description") == "inf_NaN_16_15_+3_1_000_1e3_None_yes_3");
    // variants.yaml: marked_yaml's rule.
    CHECK(h2.at("k1") == ".inf");
    CHECK(h2.at("k3") == "0x10");
    CHECK(h2.at("k5") == 3);
    CHECK(h2.at("k8") == "~");
    CHECK(h2.at("k10") == 3);
    CHECK(v1.outputs[1].hash_input.at("k10") == 7);
    CHECK(v1.outputs[0].about.at("description") == ".inf_.nan_0x10_0o17_3_1_000_1e3_~_yes_3");
    // context: marked_yaml's rule, as the recipe's parser types it.
    CHECK(v1.outputs[0].about.at("summary") == "0x10|4|8|~|.inf|99999999999999999999|[\"~\", 3, \"0o17\"]");
}
