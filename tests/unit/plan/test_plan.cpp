#include <catch2/catch.hpp>

#include "plan/plan.hpp"
#include "render/render.hpp"
#include "testutil.hpp"

using namespace sf;

namespace {

std::vector<types::Dependency> deps(const std::vector<std::string>& specs) {
    auto d = types::parse_dependencies(specs);
    REQUIRE(d);
    return *d;
}

render::RenderedOutput out(const std::string& name, std::map<std::string, std::string> used,
                           std::vector<std::pair<std::string, std::string>> variant, std::string script,
                           std::vector<std::string> host = {}, int top = 0) {
    render::RenderedOutput o;
    o.name = name;
    o.version = "1.0";
    o.build_string = name + "_0";
    o.used = std::move(used);
    o.variant.values = std::move(variant);
    o.script = std::move(script);
    o.requirements.host = deps(host);
    o.top_variant = top;
    return o;
}

// A PyTorch-shaped recipe: libtorch, pytorch per Python, a metapackage.
render::RenderedRecipe shaped(const std::string& blas) {
    render::RenderedRecipe rr;
    rr.name = "split";
    rr.version = "1.0";
    rr.recipe_dir = "/r";
    variant::Variant top;
    top.values = {{"blas_impl", blas}, {"cuda_compiler_version", "None"}};
    rr.tops = {{top, {deps({"cmake"}), deps({"python 3.12", "libcblas"}), {}, {}}, {}}};
    auto base = std::vector<std::pair<std::string, std::string>>{{"blas_impl", blas},
                                                                 {"cuda_compiler_version", "None"}};
    auto with_py = [&](const std::string& py) {
        auto v = base;
        v.emplace_back("python", py + ".* *_cpython");
        return v;
    };
    rr.outputs.push_back(out("meta", {{"blas_impl", blas}, {"python", "3.13.* *_cpython"}}, with_py("3.13"), ""));
    rr.outputs.push_back(out("libtorch", {{"blas_impl", blas}}, base, "build_libtorch.sh", {"python 3.12"}));
    for (const char* py : {"3.11", "3.13"})
        rr.outputs.push_back(out("pytorch", {{"python", std::string(py) + ".* *_cpython"}}, with_py(py),
                                 "build_pytorch.sh", {"python"}));
    rr.outputs.push_back(out("meta", {{"blas_impl", blas}, {"python", "3.11.* *_cpython"}}, with_py("3.11"), ""));
    return rr;
}

plan::HostFacts host(std::set<std::string> pythons, bool mkl = false, bool nvcc = false) {
    plan::HostFacts h;
    h.pythons = std::move(pythons);
    h.mkl = mkl;
    h.nvcc = nvcc;
    return h;
}

}  // namespace

TEST_CASE("make_plan: independent outputs, then per-Python groups, then metapackages", "[plan]") {
    auto p = plan::make_plan(shaped("generic"), host({"3.11", "3.12", "3.13"}), plan::SkipUnavailable::no);
    REQUIRE(p);
    REQUIRE(p->builds.size() == 1);
    const auto& b = p->builds[0];
    CHECK(b.label == "cpu_generic");
    CHECK(b.python == "3.12");
    REQUIRE(b.steps.size() == 5);
    CHECK(b.steps[0].output.name == "libtorch");
    CHECK(b.steps[0].role == plan::Role::independent);
    CHECK(b.steps[1].output.name == "pytorch");
    CHECK(b.steps[1].python == "3.11");
    CHECK(b.steps[2].python == "3.13");
    CHECK(b.steps[2].role == plan::Role::per_python);
    CHECK(b.steps[3].role == plan::Role::metapackage);
    CHECK(b.steps[3].python == "3.11");  // in the order the Pythons were first built
    CHECK(b.steps[4].python == "3.13");
    CHECK(types::dependency_strings(b.requirements.host) == std::vector<std::string>{"python 3.12", "libcblas"});
}

TEST_CASE("make_plan: a metapackage that never names python needs no interpreter", "[plan]") {
    // gtest's gmock: no script, no files, requirements on gtest only; the
    // variant still holds conda-build's default python 3.12.
    render::RenderedRecipe rr;
    rr.name = "gtest-split";
    rr.version = "1.14.0";
    rr.recipe_dir = "/r";
    variant::Variant top;
    top.values = {{"python", "3.12"}, {"cxx_compiler_version", "12"}};
    rr.tops = {{top, {deps({"gxx_linux-64 12.*"}), {}, {}, {}}, {}}};
    auto v = top.values;
    rr.outputs.push_back(out("gtest", {{"cxx_compiler_version", "12"}}, v, "build-gtest.sh"));
    rr.outputs.push_back(out("gmock", {}, v, "", {"gtest 1.14.0 h00ab1b0_1"}));
    auto p = plan::make_plan(rr, host({}), plan::SkipUnavailable::no);
    REQUIRE(p);
    REQUIRE(p->builds[0].steps.size() == 2);
    CHECK(p->builds[0].steps[1].role == plan::Role::metapackage);
    CHECK(p->builds[0].steps[1].python.empty());
}

TEST_CASE("make_plan: a missing interpreter is an error or a skip", "[plan]") {
    SECTION("error names the Python") {
        auto p = plan::make_plan(shaped("generic"), host({"3.11", "3.12"}), plan::SkipUnavailable::no);
        REQUIRE_FALSE(p);
        CHECK(p.error().message.find("python 3.13 not found") != std::string::npos);
    }
    SECTION("skipped with --skip-unavailable") {
        auto p = plan::make_plan(shaped("generic"), host({"3.11", "3.12"}), plan::SkipUnavailable::yes);
        REQUIRE(p);
        CHECK(p->output_count() == 3);
        CHECK(p->skipped.size() == 2);
        for (const auto& s : p->skipped) CHECK(s.reason.find("python 3.13") != std::string::npos);
    }
    SECTION("the staging Python is required for the whole build") {
        auto p = plan::make_plan(shaped("generic"), host({"3.11", "3.13"}), plan::SkipUnavailable::no);
        REQUIRE_FALSE(p);
        CHECK(p.error().message.find("staging build cpu_generic is unavailable: python 3.12") != std::string::npos);
    }
}

TEST_CASE("make_plan: mkl needs MKL, cuda needs nvcc", "[plan]") {
    auto rr = shaped("mkl");
    auto p = plan::make_plan(rr, host({"3.11", "3.12", "3.13"}), plan::SkipUnavailable::no);
    REQUIRE_FALSE(p);
    CHECK(p.error().message.find("MKL not found") != std::string::npos);
    CHECK(p.error().hint.find("--skip-unavailable") != std::string::npos);
    CHECK(plan::make_plan(rr, host({"3.11", "3.12", "3.13"}, true), plan::SkipUnavailable::no));

    rr = shaped("generic");
    rr.tops[0].requirements.build.push_back(deps({"cuda-nvcc_linux-64 13.0.*"})[0]);
    auto c = plan::make_plan(rr, host({"3.11", "3.12", "3.13"}), plan::SkipUnavailable::yes);
    REQUIRE_FALSE(c);  // nothing else left to build
    CHECK(c.error().message.find("nvcc not found") != std::string::npos);
    auto ok = plan::make_plan(rr, host({"3.11", "3.12", "3.13"}, false, true), plan::SkipUnavailable::no);
    REQUIRE(ok);
    CHECK(ok->builds[0].needs_cuda);
}

TEST_CASE("make_plan on the demo recipe: one staging build per non-Python variant", "[plan]") {
    auto rr = render::render_dir(test::source_dir() / "demo/minitorch/recipe", *variant::select("linux-64", {}, {}));
    REQUIRE(rr);
    auto p = plan::make_plan(*rr, host({"3.9", "3.10", "3.11", "3.12", "3.13"}, false, true),
                             plan::SkipUnavailable::yes);
    REQUIRE(p);
    REQUIRE(p->builds.size() == 2);  // cpu_generic, cuda13.0_generic; both mkl skipped
    CHECK(p->skipped.size() == 2);
    CHECK(p->builds[0].label == "cpu_generic");
    CHECK(p->builds[1].label == "cuda13.0_generic");
    CHECK(p->builds[0].steps.size() == 12);  // libtorch, libtorch-static, 5 pytorch, 5 pytorch-cpu
    CHECK(p->builds[1].steps.size() == 13);  // + 2 libtorch-cuda-linalg
    CHECK(p->builds[1].steps[0].output.name == "libtorch-cuda-linalg");
    CHECK(p->builds[1].steps[2].output.name == "libtorch");
    for (const auto& s : p->builds[0].steps)
        if (s.output.name == "pytorch") CHECK(s.role == plan::Role::per_python);
    CHECK(p->builds[0].python == "3.12");
}
