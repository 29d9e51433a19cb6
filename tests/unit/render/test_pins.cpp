// Pin resolution on typed dependencies (render/pins.hpp), case by case; the
// goldens cover the same rules on whole recipes.
#include <catch2/catch.hpp>

#include "render/pins.hpp"

using namespace sf;

namespace {

types::Dependency spec(const std::string& text) {
    auto d = types::Dependency::parse(text);
    REQUIRE(d);
    return *d;
}

types::Dependency compatible(const std::string& name, bool exact = false, std::string max_pin = "x") {
    types::Pin p;
    p.kind = types::Pin::Kind::compatible;
    p.name = name;
    p.exact = exact;
    p.max_pin = std::move(max_pin);
    return types::Dependency(p);
}

render::RenderedOutput output(const std::string& name, const std::string& version, const std::string& build) {
    render::RenderedOutput o;
    o.name = name;
    o.version = version;
    o.build_string = build;
    return o;
}

}  // namespace

TEST_CASE("resolve_pins: pin_compatible reads the host, which is resolved first") {
    auto o = output("ext", "1.0", "py312_0");
    // The host's own pin finds itself first and stays a bare name; the run
    // pin then reads the versioned entry after it.
    o.requirements.host = {compatible("numpy"), spec("numpy 1.26.*")};
    o.requirements.run = {compatible("numpy"), compatible("numpy", true)};
    std::vector<render::RenderedOutput> outs{o};
    render::SpecMemo memo;
    render::resolve_pins(outs, {}, memo);
    const auto& r = outs[0].requirements;
    CHECK(r.host[0].str() == "numpy");
    CHECK_FALSE(r.host[0].is_pin());
    CHECK(r.run[0].str() == "numpy >=1.26,<2.0a0");
    CHECK(r.run[1].str() == "numpy 1.26");
    REQUIRE(r.run[0].spec());
    CHECK(r.run[0].spec()->name() == "numpy");
}

TEST_CASE("resolve_pins: pin_subpackage names the output, exact gives version and build") {
    types::Pin sub;
    sub.name = "libfoo";
    sub.max_pin = "x.x";
    types::Pin exact = sub;
    exact.exact = true;
    auto lib = output("libfoo", "2.3.1", "h1234567_0");
    auto py = output("py-foo", "2.3.1", "py312_0");
    py.requirements.run = {types::Dependency(sub), types::Dependency(exact)};
    py.test.requires_ = {types::Dependency(exact)};
    std::vector<render::RenderedOutput> outs{lib, py};
    render::SpecMemo memo;
    render::resolve_pins(outs, {}, memo);
    CHECK(outs[1].requirements.run[0].str() == "libfoo >=2.3.1,<2.4.0a0");
    CHECK(outs[1].requirements.run[1].str() == "libfoo 2.3.1 h1234567_0");
    CHECK(outs[1].test.requires_[0].str() == "libfoo 2.3.1 h1234567_0");
}

TEST_CASE("resolve_pins: pin_run_as_build bounds a bare run name by the host's version") {
    auto o = output("ext", "1.0", "0");
    o.requirements.host = {spec("python 3.12.*")};
    o.requirements.run = {spec("python"), spec("python >=3.8")};
    std::vector<render::RenderedOutput> outs{o};
    render::SpecMemo memo;
    render::resolve_pins(outs, {{"python", variant::PinRunAsBuild{"x.x", "x.x"}}}, memo);
    CHECK(outs[0].requirements.run[0].str() == "python >=3.12,<3.13.0a0");
    CHECK(outs[0].requirements.run[1].str() == "python >=3.8");  // not bare: left alone
}

TEST_CASE("dependencies_of: text that is no match spec warns and is kept, --strict refuses it") {
    render::SpecMemo memo;
    Diagnostics lenient;
    auto d = render::dependencies_of({"zlib", "src-dir-$SRC_DIR"}, "meta.yaml: run", lenient, memo);
    REQUIRE(d);
    CHECK((*d)[1].str() == "src-dir-$SRC_DIR");
    CHECK_FALSE((*d)[1].spec());
    REQUIRE(lenient.warnings().size() == 1);
    CHECK(lenient.warnings()[0].message.find("meta.yaml: run: invalid match spec 'src-dir-$SRC_DIR'") == 0);
    Diagnostics strict{true};
    auto e = render::dependencies_of({"src-dir-$SRC_DIR"}, "meta.yaml: run", strict, memo);
    REQUIRE_FALSE(e);
    CHECK(e.error().message.find("invalid package name") != std::string::npos);
}

TEST_CASE("dependencies_of: a spec keeps its text as written") {
    render::SpecMemo memo;
    Diagnostics diag;
    auto d = render::dependencies_of({"foo >=1 "}, "run", diag, memo);
    REQUIRE(d);
    CHECK((*d)[0].str() == "foo >=1 ");
}

namespace {

std::string v1_pin(const std::string& lower, const std::string& upper, const std::string& version) {
    types::Pin p;
    p.name = "foo";
    p.min_pin = p.max_pin = "";
    auto bound = [](const std::string& b, std::string& expr, std::string& ver) {
        (b.find_first_not_of("x.") == std::string::npos ? expr : ver) = b;
    };
    if (!lower.empty()) bound(lower, p.min_pin, p.lower_bound);
    if (!upper.empty()) bound(upper, p.max_pin, p.upper_bound);
    auto r = render::apply_v1_pin(p, version, "h1234_0");
    REQUIRE(r);
    return *r;
}

}  // namespace

TEST_CASE("apply_v1_pin: rattler-build's pin arithmetic (test-data/pins.yaml)") {
    CHECK(v1_pin("x.x", "x.x.x", "9.0") == "foo >=9.0,<9.0.1.0a0");
    CHECK(v1_pin("x.x", "x.x", "1.2.3") == "foo >=1.2,<1.3.0a0");
    CHECK(v1_pin("x.x.x.x", "x.x.x", "9") == "foo >=9,<9.0.1.0a0");
    CHECK(v1_pin("", "x.x", "9d") == "foo <9d.1.0a0");
    CHECK(v1_pin("", "x", "9d") == "foo <10a");
    CHECK(v1_pin("x", "x", "9d") == "foo >=9d,<10a");
    CHECK(v1_pin("x.x.x", "", "1.2.3") == "foo >=1.2.3");
    CHECK(v1_pin("x.x.x", "x.x.x", "1.0.2j") == "foo >=1.0.2j,<1.0.3a");
    CHECK(v1_pin("x.x.x", "x.x.x.x", "1.0.2j") == "foo >=1.0.2j,<1.0.2j.1.0a0");
    CHECK(v1_pin("x.x", "x.x.x", "5!1.2.3") == "foo >=5!1.2,<5!1.2.4.0a0");
    CHECK(v1_pin("x.x", "x.x.x", "5!1.2.3+3.4") == "foo >=5!1.2+3.4,<5!1.2.4.0a0");
    CHECK(v1_pin("1.2", "1.2.5", "1.2.3") == "foo >=1.2,<1.2.5");
    CHECK(v1_pin("x", "1.2.9", "1.2.3") == "foo >=1,<1.2.9");
    CHECK(v1_pin("1.0.1", "x.x", "1.2.3") == "foo >=1.0.1,<1.3.0a0");
    // The defaults (x.x.x.x.x.x, x): the whole version, the next major.
    CHECK(v1_pin("x.x.x.x.x.x", "x", "3.12.1") == "foo >=3.12.1,<4.0a0");
}

TEST_CASE("apply_v1_pin: exact pins version and build, build= follows the bounds, empty expressions fail") {
    types::Pin p;
    p.name = "foo";
    p.exact = true;
    CHECK(*render::apply_v1_pin(p, "1.2.3", "h1234_0") == "foo ==1.2.3 h1234_0");
    p.exact = false;
    p.max_pin = "x.x";
    p.build = "*cuda*";
    CHECK(*render::apply_v1_pin(p, "1.2.3", "h1234_0") == "foo >=1.2.3,<1.3.0a0 *cuda*");
    p.exact = true;
    CHECK_FALSE(render::apply_v1_pin(p, "1.2.3", "h1234_0"));
    p.exact = false;
    p.build.clear();
    p.max_pin = "..";
    auto r = render::apply_v1_pin(p, "1.2.3", "h1234_0");
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("needs at least `x`") != std::string::npos);
}
