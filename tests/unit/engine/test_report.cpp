#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "archive/read.hpp"
#include "engine/engine.hpp"
#include "engine/python_package.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;

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
    r.exported = {"python-3.12.1-0_system.conda", "pip-23.2.1-0_system.conda"};
    r.seconds = 12.5;
    std::string t = engine::summary_table(r);
    CHECK(t.find("package") == 0);
    CHECK(t.find("libtorch-0.3.0-cpu_generic_h4f3769d_0") != std::string::npos);
    CHECK(t.find("25.0 KiB") != std::string::npos);
    CHECK(t.find("passed") != std::string::npos);
    CHECK(t.find("skipped (unavailable): unavailable: MKL not found") != std::string::npos);
    CHECK(t.find("total 12.5s") != std::string::npos);
    CHECK(t.find("exported pip-23.2.1-0_system.conda (the host interpreter's pip)") != std::string::npos);
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

namespace {

void put(const stdfs::path& p, const std::string& text) {
    stdfs::create_directories(p.parent_path());
    REQUIRE(fs::write_file_atomic(p, text));
}

}  // namespace

// Stock conda adds pip to python's depends: the host interpreter's own pip
// goes into the channel beside its python, as a noarch: python package.
TEST_CASE("python package: the interpreter's pip as pip-V-0_system", "[engine]") {
    fs::TempDir tmp("sf-pippkg");
    env::Interpreter py;
    py.minor = "3.12";
    py.version = "3.12.1";
    py.prefix = tmp.path() / "py";
    const stdfs::path site = py.prefix / "lib/python3.12/site-packages";
    put(site / "pip/__init__.py", "__version__ = '24.0'\n");
    put(site / "pip/__pycache__/__init__.cpython-312.pyc", "bytecode");
    put(site / "pip/_internal/cli/main.py", "def main(): pass\n");
    put(site / "pip-24.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pip\nVersion: 24.0\n"
                                              "Requires-Python: >=3.7\n\nRequires-Python: <2 (the body)\n");
    put(site / "pip-24.0.dist-info/INSTALLER", "pip\n");
    put(site / "pip-24.0.dist-info/entry_points.txt",
        "[console_scripts]\npip = pip._internal.cli.main:main\npip3 = pip._internal.cli.main:main\n"
        "pip3.12 = pip._internal.cli.main:main\n");
    put(site / "setuptools/__init__.py", "");  // another package: not pip's

    auto pip = engine::host_pip(py);
    REQUIRE(pip);
    CHECK(pip->version == "24.0");
    const stdfs::path ch = tmp.path() / "ch";
    auto made = engine::export_pip(py, *pip, ch, tmp.path() / "work");
    INFO((made ? std::string() : made.error().str()));
    REQUIRE(made);
    CHECK(*made == ch / "noarch/pip-24.0-0_system.conda");
    CHECK(engine::pip_package_in(ch, *pip) == *made);
    auto index = nlohmann::json::parse(*archive::read_package_member(*made, "info/index.json"));
    CHECK(index["noarch"] == "python");
    CHECK(index["subdir"] == "noarch");
    CHECK(index["depends"] == nlohmann::json::array({"python >=3.7"}));
    auto link = nlohmann::json::parse(*archive::read_package_member(*made, "info/link.json"));
    CHECK(link["noarch"]["entry_points"] ==
          nlohmann::json::array({"pip = pip._internal.cli.main:main", "pip3 = pip._internal.cli.main:main"}));
    auto files = str::split_lines(*archive::read_package_member(*made, "info/files"));
    CHECK(files == std::vector<std::string>{"site-packages/pip-24.0.dist-info/INSTALLER",
                                            "site-packages/pip-24.0.dist-info/METADATA",
                                            "site-packages/pip-24.0.dist-info/entry_points.txt",
                                            "site-packages/pip/__init__.py",
                                            "site-packages/pip/_internal/cli/main.py"});
    CHECK(test::slurp(ch / "noarch/repodata.json").find("pip-24.0-0_system.conda") != std::string::npos);

    SECTION("two dist-infos: which one pip/ is stays open, so none is exported") {
        put(site / "pip-23.0.dist-info/METADATA", "Name: pip\n");
        CHECK_FALSE(engine::host_pip(py));
    }
    SECTION("no pip") {
        stdfs::remove_all(site / "pip");
        CHECK_FALSE(engine::host_pip(py));
    }
}
