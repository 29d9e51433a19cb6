#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "engine/python_package.hpp"
#include "testutil.hpp"

using namespace sf;

TEST_CASE("report: the summary table and JSON", "[engine]") {
    engine::BuildReport r;
    engine::OutputResult a;
    a.dist = "libtorch-0.3.0-cpu_generic_h4f3769d_0";
    a.name = "libtorch";
    a.variant = "cpu_generic";
    a.test = "passed";
    a.size = 25 * 1024;
    a.seconds = 0.4;
    a.rebuilt = {"x.o"};
    engine::OutputResult b;
    b.dist = "staging build cpu_mkl";
    b.status = engine::Status::skipped_unavailable;
    b.test = "-";
    b.detail = "unavailable: MKL not found";
    r.outputs = {a, b};
    r.exported = {"python-3.12.1-0_system.conda"};
    r.seconds = 12.5;
    std::string t = engine::summary_table(r);
    CHECK(t.find("package") == 0);
    CHECK(t.find("libtorch-0.3.0-cpu_generic_h4f3769d_0") != std::string::npos);
    CHECK(t.find("25.0 KiB") != std::string::npos);
    CHECK(t.find("passed") != std::string::npos);
    CHECK(t.find("skipped (unavailable): unavailable: MKL not found") != std::string::npos);
    CHECK(t.find("total 12.5s") != std::string::npos);
    auto j = engine::report_json(r);
    REQUIRE(j["outputs"].size() == 2);
    CHECK(j["outputs"][0]["status"] == "built");
    CHECK(j["outputs"][0]["rebuilt"][0] == "x.o");
    CHECK(j["outputs"][1]["status"] == "skipped (unavailable)");
    CHECK(j["exported"][0] == "python-3.12.1-0_system.conda");
}

TEST_CASE("python package: refuses system prefixes", "[engine]") {
    fs::TempDir tmp("sf-pypkg");
    env::Interpreter py;
    py.minor = "3.11";
    py.version = "3.11.2";
    py.exe = "/usr/bin/python3.11";
    py.prefix = "/usr";
    auto r = engine::export_python(py, tmp.path() / "ch", *types::Platform::parse("linux-64"), tmp.path());
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("system prefix /usr") != std::string::npos);
    CHECK(engine::python_package_in(tmp.path() / "ch", *types::Platform::parse("linux-64"), py).empty());
}
