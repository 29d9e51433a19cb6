// End to end: `splitforge wheel` on a small package set made here (libbar <-
// libfoo <- libtorch <- pytorch with a real CPython extension), compiled at
// test time with the host's compilers and a Python found on PATH or in pyenv.
// The wheel must pip-install into a fresh venv and import with every build
// and channel directory moved away and LD_LIBRARY_PATH unset.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <regex>

#include "archive/zip_read.hpp"
#include "binary/artifact.hpp"
#include "env/python_env.hpp"
#include "nginx.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"
#include "util/strings.hpp"

using namespace sf;
namespace stdfs = std::filesystem;
using nlohmann::json;

namespace {

process::Outcome run(std::vector<std::string> argv, const stdfs::path& cwd = {}, process::Env env = {}) {
    process::Command c;
    c.argv = std::move(argv);
    c.env = env.empty() ? process::current_env() : std::move(env);
    c.cwd = cwd;
    auto r = process::capture(c);
    REQUIRE(r);
    return *r;
}

void ok(std::vector<std::string> argv, const stdfs::path& cwd = {}) {
    auto r = run(argv, cwd);
    INFO(str::join(argv, " ") << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
}

process::Outcome sf_run(std::vector<std::string> args) {
    args.insert(args.begin(), test::binary().string());
    return run(std::move(args));
}

// The newest Python here with headers and a working venv + pip; nullopt: none.
std::optional<env::Interpreter> python_for_wheels() {
    auto found = env::discover_pythons(process::current_env());
    std::vector<env::Interpreter> pys;
    for (const auto& [_, py] : found) pys.push_back(py);
    auto minor_of = [](const env::Interpreter& p) { return std::stoi(p.minor.substr(p.minor.find('.') + 1)); };
    std::sort(pys.begin(), pys.end(), [&](const auto& a, const auto& b) { return minor_of(a) > minor_of(b); });
    for (const auto& py : pys) {
        if (!py.headers || !str::starts_with(py.minor, "3.") || minor_of(py) < 8) continue;
        auto r = run({py.exe.string(), "-c", "import venv, ensurepip, sysconfig"});
        if (r.exit_code == 0) return py;
    }
    return std::nullopt;
}

struct Fixture {
    stdfs::path build, channel;
    std::string minor;
};

// libbar.so.1 (C, behind symlinks) <- libfoo.so.1 (C++) <- libtorch.so <-
// libtorch_python.so <- torch/_C (a CPython extension), packaged as conda
// packages libbar, libfoo, libtorch and pytorch (which depends on a
// `withbar` list of them) into one channel.
// libfoo in C++ (std::string: GLIBCXX and, with a recent libstdc++, a new
// GLIBC) or in C (nothing versioned beyond glibc's oldest): two tags.
enum class FooLang { cxx, c };

// `ext_flags` go to the extension module's compile and link; libtorch's
// TorchConfig.cmake is `torch_config` with @PREFIX@ the prefix `package
// --prefix` detects (so the file holds the conda placeholder).
Fixture make_fixture(const stdfs::path& root, const env::Interpreter& py, bool with_foo = true,
                     FooLang lang = FooLang::cxx, const std::vector<std::string>& ext_flags = {},
                     const std::string& torch_config = "# Torch\n") {
    Fixture f{root / "build", root / "channel", py.minor};
    const stdfs::path b = f.build;
    auto cfg = run({py.exe.string(), "-c",
                    "import sysconfig; print(sysconfig.get_paths()['include']); "
                    "print(sysconfig.get_config_var('EXT_SUFFIX'))"});
    REQUIRE(cfg.exit_code == 0);
    const auto lines = str::split_lines(cfg.out);
    REQUIRE(lines.size() >= 2);
    const std::string site = "lib/python" + py.minor + "/site-packages/torch/";
    test::put(b / "src/bar.c", "int bar_twice(int x) { return 2 * x; }\n");
    test::put(b / "src/foo.cpp",
              "#include <string>\nextern \"C\" int bar_twice(int);\n"
              "extern \"C\" int foo_value(int x) { std::string s(x, 'a'); return bar_twice((int)s.size()) + 1; }\n");
    test::put(b / "src/torch.cpp",
              "extern \"C\" int foo_value(int);\nextern \"C\" int torch_compute(int x) { return foo_value(x) * 10; }\n");
    test::put(b / "src/tp.cpp",
              "extern \"C\" int torch_compute(int);\nextern \"C\" int tp_compute(int x) { return torch_compute(x) + 3; }\n");
    test::put(b / "src/C.c",
              "#include <Python.h>\nint tp_compute(int);\n"
              "static PyObject* compute(PyObject* s, PyObject* a) { return PyLong_FromLong(tp_compute((int)PyLong_AsLong(a))); }\n"
              "static PyMethodDef m[] = {{\"compute\", compute, METH_O, \"\"}, {0}};\n"
              "static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, \"_C\", 0, -1, m};\n"
              "PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&mod); }\n");
    test::put(b / ("pt/" + site + "__init__.py"), "from torch import _C\n\ndef compute(x):\n    return _C.compute(x)\n");
    test::put(b / "lt/include/torch/torch.h", "int torch_compute(int);\n");
    const bool with_prefix = torch_config.find("@PREFIX@") != std::string::npos;
    test::put(b / "lt/share/cmake/Torch/TorchConfig.cmake",
              std::regex_replace(torch_config, std::regex("@PREFIX@"), (b / "lt").string()));
    const std::string s = (b / "src").string() + "/";
    stdfs::create_directories(b / "bar/lib");
    stdfs::create_directories(b / "foo/lib");
    stdfs::create_directories(b / "lt/lib");
    ok({"gcc", "-shared", "-fPIC", "-o", (b / "bar/lib/libbar.so.1.0").string(), "-Wl,-soname,libbar.so.1", s + "bar.c"});
    stdfs::create_symlink("libbar.so.1.0", b / "bar/lib/libbar.so.1");
    stdfs::create_symlink("libbar.so.1", b / "bar/lib/libbar.so");
    test::put(b / "src/foo.c", "int bar_twice(int);\nint foo_value(int x) { return bar_twice(x) + 1; }\n");
    ok({lang == FooLang::cxx ? "g++" : "gcc", "-shared", "-fPIC", "-o", (b / "foo/lib/libfoo.so.1").string(),
        "-Wl,-soname,libfoo.so.1", s + (lang == FooLang::cxx ? "foo.cpp" : "foo.c"),
        (b / "bar/lib/libbar.so.1").string(), "-Wl,-rpath,$ORIGIN"});
    ok({"g++", "-shared", "-fPIC", "-o", (b / "lt/lib/libtorch.so").string(), "-Wl,-soname,libtorch.so",
        s + "torch.cpp", (b / "foo/lib/libfoo.so.1").string(), "-Wl,-rpath,$ORIGIN",
        "-Wl,-rpath-link," + (b / "bar/lib").string()});
    ok({"g++", "-shared", "-fPIC", "-o", (b / "pt/lib/libtorch_python.so").string(), "-Wl,-soname,libtorch_python.so",
        s + "tp.cpp", (b / "lt/lib/libtorch.so").string(), "-Wl,-rpath,$ORIGIN",
        "-Wl,-rpath-link," + (b / "foo/lib").string() + ":" + (b / "bar/lib").string()});
    std::vector<std::string> ext = {"gcc", "-shared", "-fPIC", "-I" + lines[0], "-o",
                                    (b / ("pt/" + site + "_C" + lines[1])).string(), s + "C.c",
                                    (b / "pt/lib/libtorch_python.so").string(), "-Wl,-rpath,$ORIGIN/../../..",
                                    "-Wl,-rpath-link," + (b / "lt/lib").string() + ":" + (b / "foo/lib").string() +
                                        ":" + (b / "bar/lib").string()};
    ext.insert(ext.end(), ext_flags.begin(), ext_flags.end());
    ok(ext);
    auto pkg = [&](const std::string& dir, std::vector<std::string> args) {
        std::vector<std::string> argv = {"package", (b / dir).string(), "-o", (b / "out").string(), "--channel",
                                         f.channel.string()};
        argv.insert(argv.end(), args.begin(), args.end());
        auto r = sf_run(argv);
        INFO(r.out << r.err);
        REQUIRE(r.exit_code == 0);
    };
    const std::string next = std::to_string(std::stoi(py.minor.substr(2)) + 1);
    pkg("bar", {"--name", "libbar", "--version", "1.0", "--build", "h0_0"});
    if (with_foo) pkg("foo", {"--name", "libfoo", "--version", "1.0", "--build", "h0_0", "--depends", "libbar >=1.0"});
    std::vector<std::string> lt = {"--name", "libtorch", "--version", "0.3.0", "--build", "cpu_generic_h0_0",
                                   "--depends", "libfoo"};
    if (with_prefix) lt.insert(lt.end(), {"--prefix", (b / "lt").string()});
    pkg("lt", lt);
    pkg("pt", {"--name", "pytorch", "--version", "0.3.0", "--build", "cpu_generic_py_h0_0", "--summary", "tiny torch",
               "--depends", "libtorch 0.3.0 cpu_generic_h0_0", "--depends",
               "python >=" + py.minor + ",<3." + next + ".0a0"});
    return f;
}

json wheel_json(const Fixture& f, const stdfs::path& out) {
    auto r = sf_run({"wheel", f.channel.string(), "--output-folder", out.string(), "--json"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
}

#define NEEDS_TOOLS()                                                                      \
    if (!test::have_tool("gcc") || !test::have_tool("g++") || !test::have_tool("patchelf")) \
        FAIL("needs gcc, g++ and patchelf on PATH (bash scripts/deps.sh installs them)"); \
    auto py = python_for_wheels();                                                         \
    if (!py) test::skip("no Python 3.8+ with headers, venv and ensurepip on PATH or in pyenv")

}  // namespace

TEST_CASE("wheel: pip installs it into a fresh venv and it imports with the build's libraries moved away") {
    NEEDS_TOOLS();
    fs::TempDir tmp("sf-it-wheel");
    const Fixture f = make_fixture(tmp.path(), *py);
    const json j = wheel_json(f, tmp.path() / "wheels");
    REQUIRE(j["wheels"].size() == 1);
    const json& w = j["wheels"][0];
    const stdfs::path wheel = w["wheel"].get<std::string>();
    auto name = binary::parse_wheel_name(wheel.filename().string());
    REQUIRE(name);
    CHECK(name->distribution == "torch");
    CHECK(name->version == "0.3.0+cpu");
    CHECK(name->python_tag == "cp" + str::join(str::split(py->minor, '.'), ""));
    CHECK(name->abi_tag == name->python_tag);
    CHECK(str::starts_with(name->platform_tag, "manylinux_2_"));
    CHECK(w["platform_tag"] == name->platform_tag);
    REQUIRE(w["bundled"].size() == 2);  // libfoo, and libbar which libfoo needs
    CHECK(w["bundled"][0].get<std::string>().rfind("torch.libs/libfoo-", 0) == 0);
    CHECK(w["bundled"][1].get<std::string>().rfind("torch.libs/libbar-", 0) == 0);

    // RECORD lists every member with pip's hash and size, and itself last.
    auto rec = run({py->exe.string(), "-c",
                    "import zipfile, hashlib, base64, csv, io, sys\n"
                    "z = zipfile.ZipFile(sys.argv[1]); names = set(z.namelist())\n"
                    "rec = [n for n in names if n.endswith('.dist-info/RECORD')][0]\n"
                    "rows = list(csv.reader(io.StringIO(z.read(rec).decode())))\n"
                    "assert rows[-1] == [rec, '', ''], rows[-1]\n"
                    "for p, h, n in rows[:-1]:\n"
                    "    d = z.read(p)\n"
                    "    assert h == 'sha256=' + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode(), p\n"
                    "    assert int(n) == len(d), p\n"
                    "assert {r[0] for r in rows} == names, names ^ {r[0] for r in rows}\n"
                    "print(len(rows))\n",
                    wheel.string()});
    INFO(rec.out << rec.err);
    CHECK(rec.exit_code == 0);

    // Nothing of the build stays where it was: channel and build trees move away.
    const stdfs::path hidden = tmp.path() / "moved-away";
    stdfs::create_directories(hidden);
    stdfs::rename(f.build, hidden / "b");
    stdfs::rename(f.channel, hidden / "c");
    process::Env env = process::current_env();
    env.erase("LD_LIBRARY_PATH");
    env.erase("PYTHONPATH");
    const stdfs::path venv = tmp.path() / "venv";
    auto mk = run({py->exe.string(), "-m", "venv", venv.string()}, {}, env);
    INFO(mk.out << mk.err);
    REQUIRE(mk.exit_code == 0);
    auto pip = run({(venv / "bin/python").string(), "-m", "pip", "install", "--no-index", "--no-cache-dir", "-q",
                    wheel.string()}, {}, env);
    INFO(pip.out << pip.err);
    REQUIRE(pip.exit_code == 0);
    auto imp = run({(venv / "bin/python").string(), "-c",
                    "import torch, os; print(torch.compute(5)); "
                    "print(sorted(os.listdir(os.path.join(os.path.dirname(torch.__file__), '..', 'torch.libs'))))"},
                   "/", env);
    INFO(imp.out << imp.err);
    REQUIRE(imp.exit_code == 0);
    CHECK(str::starts_with(imp.out, "113\n"));  // ((2*5)+1)*10+3, through every bundled library
    auto show = run({(venv / "bin/python").string(), "-m", "pip", "show", "torch"}, {}, env);
    CHECK(show.out.find("Version: 0.3.0+cpu") != std::string::npos);
    CHECK(show.out.find("Summary: tiny torch") != std::string::npos);
}

TEST_CASE("wheel: indexed as a pip index and served by nginx, pip installs it by name and reads its PEP 658 metadata") {
    NEEDS_TOOLS();
    fs::TempDir tmp("sf-it-wheel");
    const Fixture f = make_fixture(tmp.path(), *py);
    // One folder per variant, as PyTorch's whl/cpu/.
    const json j = wheel_json(f, tmp.path() / "whl/cpu");
    REQUIRE(j["wheels"].size() == 1);
    auto idx = sf_run({"index", (tmp.path() / "whl/cpu").string()});
    INFO(idx.out << idx.err);
    REQUIRE(idx.exit_code == 0);
    CHECK(idx.out.find("indexed 1 wheel(s) of 1 project(s)") == 0);
    test::Nginx web(tmp.path() / "whl");
    process::Env env = process::current_env();
    env.erase("LD_LIBRARY_PATH");
    env.erase("PYTHONPATH");
    env.erase("PIP_INDEX_URL");
    env.erase("PIP_EXTRA_INDEX_URL");
    env.erase("PIP_FIND_LINKS");
    const stdfs::path venv = tmp.path() / "venv";
    auto mk = run({py->exe.string(), "-m", "venv", venv.string()}, {}, env);
    REQUIRE(mk.exit_code == 0);
    auto pip = run({(venv / "bin/python").string(), "-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check",
                    "--index-url", web.url("/cpu/simple"), "torch"}, {}, env);
    INFO(pip.out << pip.err << web.access_log());
    REQUIRE(pip.exit_code == 0);
    auto imp = run({(venv / "bin/python").string(), "-c", "import torch; print(torch.compute(5))"}, "/", env);
    INFO(imp.out << imp.err);
    CHECK(imp.out == "113\n");  // ((2*5)+1)*10+3: the multiply in libtorch, through the bundled libraries
    bool page = false, metadata = false, wheel = false;
    for (const auto& h : web.hits()) {
        page = page || (h.path == "/cpu/simple/torch/" && h.status == 200);
        metadata = metadata || (str::ends_with(h.path, ".whl.metadata") && h.status == 200);
        wheel = wheel || (str::ends_with(h.path, ".whl") && h.status == 200);
    }
    CHECK(page);
    CHECK(metadata);  // pip read the PEP 658 file before it fetched the wheel
    CHECK(wheel);
}

TEST_CASE("wheel: smoke --index installs the served wheel into a fresh venv with pip and runs the smoke test") {
    NEEDS_TOOLS();
    fs::TempDir tmp("sf-it-wheel");
    const Fixture f = make_fixture(tmp.path(), *py);
    wheel_json(f, tmp.path() / "whl/cpu");
    REQUIRE(sf_run({"index", (tmp.path() / "whl/cpu").string()}).exit_code == 0);
    test::Nginx web(tmp.path() / "whl");
    const auto script = tmp.path() / "smoke_test.py";
    std::ofstream(script) << "import sys, torch\nassert torch.compute(5) == 113, torch.compute(5)\nprint('multiplied')\n";
    auto ok = sf_run({"smoke", "--index", web.url("/cpu/simple"), "torch", "--script", script.string(), "--python",
                      py->exe.string(), "--json"});
    INFO(ok.out << ok.err << web.access_log());
    REQUIRE(ok.exit_code == 0);
    CHECK(nlohmann::json::parse(ok.out)["passed"] == true);
    CHECK(ok.err.find("multiplied") != std::string::npos);
    bool wheel = false;
    for (const auto& h : web.hits()) wheel = wheel || (str::ends_with(h.path, ".whl") && h.status == 200);
    CHECK(wheel);  // from the server, not from a cache

    // A password in the index URL shows in no line, the failing pip's included.
    std::string url = web.url("/nope/simple");
    url.insert(url.find("://") + 3, "sfuser:s3cr3tpw@");
    auto bad = sf_run({"smoke", "--index", url, "torch", "--script", script.string(), "--python", py->exe.string()});
    CHECK(bad.exit_code == 1);
    CHECK(test::last_line(bad.err).find("pip install from http://") != std::string::npos);
    CHECK((bad.out + bad.err).find("s3cr3tpw") == std::string::npos);
}

TEST_CASE("wheel: the same packages give the same bytes") {
    NEEDS_TOOLS();
    fs::TempDir tmp("sf-it-wheel");
    const Fixture f = make_fixture(tmp.path(), *py);
    const json a = wheel_json(f, tmp.path() / "a"), b = wheel_json(f, tmp.path() / "b");
    const std::string wa = test::slurp(a["wheels"][0]["wheel"].get<std::string>());
    const std::string wb = test::slurp(b["wheels"][0]["wheel"].get<std::string>());
    CHECK_FALSE(wa.empty());
    CHECK(wa == wb);
}

TEST_CASE("wheel: a library no dependency provides is an error naming the file and the library, and nothing is written") {
    NEEDS_TOOLS();
    fs::TempDir tmp("sf-it-wheel");
    const Fixture f = make_fixture(tmp.path(), *py, /*with_foo=*/false);
    const stdfs::path out = tmp.path() / "wheels";
    auto r = sf_run({"wheel", f.channel.string(), "--output-folder", out.string()});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("torch/lib/libtorch.so") != std::string::npos);
    CHECK(r.err.find("needs libfoo.so.1") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    std::error_code ec;
    if (stdfs::exists(out, ec)) CHECK(stdfs::is_empty(out, ec));
}

TEST_CASE("wheel: an extension module linked for x86-64-v3 is refused, naming the file and the level") {
#if !defined(__x86_64__)
    test::skip("x86-64 ISA levels exist on x86_64 only");
#endif
    NEEDS_TOOLS();
    fs::TempDir tmp("sf-it-wheel");
    const Fixture f = make_fixture(tmp.path(), *py, true, FooLang::cxx, {"-march=x86-64-v3", "-Wl,-z,x86-64-v3"});
    const stdfs::path out = tmp.path() / "wheels";
    auto r = sf_run({"wheel", f.channel.string(), "--output-folder", out.string()});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);  // as `auditwheel repair` refuses it: 'depends on unsupported ISA extensions'
    CHECK(r.err.find("torch wheel: torch/_C.") != std::string::npos);
    CHECK(r.err.find(": needs the x86_64_v3 instruction set (GNU_PROPERTY_X86_ISA_1_NEEDED)") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    std::error_code ec;
    if (stdfs::exists(out, ec)) CHECK(stdfs::is_empty(out, ec));
}

TEST_CASE("wheel: a CMake file holding the conda prefix ships with its paths relative to itself") {
    NEEDS_TOOLS();
    fs::TempDir tmp("sf-it-wheel");
    const Fixture f = make_fixture(tmp.path(), *py, true, FooLang::cxx, {},
                                   "set(TORCH_INCLUDE_DIRS \"@PREFIX@/include\")\n"
                                   "set(TORCH_LIBRARY \"@PREFIX@/lib/libtorch.so\")\n");
    const json j = wheel_json(f, tmp.path() / "wheels");
    REQUIRE(j["wheels"].size() == 1);
    const std::string wheel = j["wheels"][0]["wheel"];
    REQUIRE(archive::extract_zip(wheel, tmp.path() / "unzipped"));
    CHECK(test::slurp(tmp.path() / "unzipped/torch/share/cmake/Torch/TorchConfig.cmake") ==
          "set(TORCH_INCLUDE_DIRS \"${CMAKE_CURRENT_LIST_DIR}/../../../include\")\n"
          "set(TORCH_LIBRARY \"${CMAKE_CURRENT_LIST_DIR}/../../../lib/libtorch.so\")\n");
    auto chk = sf_run({"check", wheel});  // its RECORD holds the rewritten file's hash
    INFO(chk.out << chk.err);
    CHECK(chk.exit_code == 0);
}

TEST_CASE("wheel: a CMake path to what the wheel does not ship is refused, naming the package and the file") {
    NEEDS_TOOLS();
    fs::TempDir tmp("sf-it-wheel");
    const Fixture f =
        make_fixture(tmp.path(), *py, true, FooLang::cxx, {}, "set(CUDART \"@PREFIX@/lib/libcudart.so\")\n");
    const stdfs::path out = tmp.path() / "wheels";
    auto r = sf_run({"wheel", f.channel.string(), "--output-folder", out.string()});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("libtorch-0.3.0-cpu_generic_h0_0.conda: share/cmake/Torch/TorchConfig.cmake: uses the conda "
                     "prefix as '") != std::string::npos);
    CHECK(r.err.find("/lib/libcudart.so', which the wheel does not ship") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    std::error_code ec;
    if (stdfs::exists(out, ec)) CHECK(stdfs::is_empty(out, ec));
}

TEST_CASE("wheel: auditwheel show gives our platform tag") {
    const char* aw_env = std::getenv("SF_AUDITWHEEL");
    const stdfs::path aw = stdfs::path(aw_env ? aw_env : "/tmp/auditwheel") / "bin/auditwheel";
    std::error_code ec;
    if (!stdfs::exists(aw, ec))
        test::skip("auditwheel is not installed (bash ../shared/peer/auditwheel-setup.sh installs it into "
                   "/tmp/auditwheel; SF_AUDITWHEEL names another place)");
    NEEDS_TOOLS();
    fs::TempDir tmp("sf-it-wheel");
    const FooLang lang = GENERATE(FooLang::cxx, FooLang::c);
    const stdfs::path dir = tmp.path() / (lang == FooLang::cxx ? "cxx" : "c");
    const Fixture f = make_fixture(dir, *py, true, lang);
    const json j = wheel_json(f, dir / "wheels");
    for (const auto& w : j["wheels"]) {
        const std::string wheel = w["wheel"];
        auto r = run({aw.string(), "show", wheel});
        INFO(r.out << r.err);
        REQUIRE(r.exit_code == 0);
        std::smatch m;
        std::string text = r.out;
        for (char& c : text)
            if (c == '\n') c = ' ';
        REQUIRE(std::regex_search(text, m, std::regex("consistent\\s+with the following platform tag:\\s+\"([^\"]+)\"")));
        // Ours carries the legacy alias after a dot where one exists.
        const std::string ours = str::split(w["platform_tag"].get<std::string>(), '.').front();
        CHECK(m[1].str() == ours);
        std::cout << "auditwheel show: " << stdfs::path(wheel).filename().string() << ": " << m[1].str() << "\n";
    }
}
