// binary/check: crafted bad artifacts each fail with one line naming the
// artifact, the file and the library, path or symbol; good ones pass.
#include <catch2/catch.hpp>

#include "archive/write.hpp"
#include "binary/check.hpp"
#include "binary/check_abi.hpp"
#include "binary/check_record.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

using namespace sf;
using namespace sf::binary;
namespace stdfs = std::filesystem;

namespace {

// Compiles `code` into a shared library; skips the test without g++.
void compile_so(const stdfs::path& out, const std::string& code, std::vector<std::string> flags = {}) {
    auto gxx = process::find_executable("g++", process::current_env()["PATH"]);
    if (!gxx) test::skip("g++ not found");
    stdfs::path src = out.string() + ".cpp";
    REQUIRE(fs::write_file_atomic(src, code));
    std::vector<std::string> argv = {gxx->string(), "-shared", "-fPIC", "-o", out.string(), src.string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto r = process::capture({argv, out.parent_path(), process::current_env()});
    REQUIRE(r);
    INFO(r->err);
    REQUIRE(r->exit_code == 0);
    stdfs::remove(src);
}

std::string record_hash(const stdfs::path& p) {
    std::string hex = *hash::file_sha256(p), raw;
    for (std::size_t i = 0; i < hex.size(); i += 2) raw += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return "sha256=" + urlsafe_b64_nopad(raw);
}

// A wheel of everything under `tree` with a right RECORD (then `edit` may
// spoil it).
stdfs::path make_wheel(const stdfs::path& dir, const stdfs::path& tree,
                       const std::function<void(std::string&)>& edit = {},
                       const std::string& platform_tag = "linux_x86_64") {
    stdfs::create_directories(tree / "demo-1.0.dist-info");
    REQUIRE(fs::write_file_atomic(tree / "demo-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n"));
    std::string record;
    for (const auto& rel : list_tree(tree))
        record += rel + "," + record_hash(tree / rel) + "," + std::to_string(stdfs::file_size(tree / rel)) + "\n";
    record += "demo-1.0.dist-info/RECORD,,\n";
    if (edit) edit(record);
    REQUIRE(fs::write_file_atomic(tree / "demo-1.0.dist-info/RECORD", record));
    stdfs::path whl = dir / ("demo-1.0-cp312-cp312-" + platform_tag + ".whl");
    auto out = archive::OutputFile::create(whl);
    REQUIRE(out);
    archive::ZipWriter zip(**out, 315532800);
    for (const auto& rel : list_tree(tree)) REQUIRE(zip.add(rel, *fs::read_file(tree / rel)));
    REQUIRE(zip.finish());
    REQUIRE((*out)->commit());
    return whl;
}

CheckResult check(const stdfs::path& file) {
    CheckOptions o;
    o.consumer = CheckOptions::Consumer::skip;
    auto r = check_artifact(file, o);
    REQUIRE(r);
    return *r;
}

std::string lines(const CheckResult& r) {
    std::string s;
    for (const auto& f : r.findings) s += f.line() + "\n";
    return s;
}

const char* kGoodLib = "#include <string>\nnamespace c10 { std::string name() { return \"c10\"; } }\n";

}  // namespace

TEST_CASE("check: a good wheel passes every check") {
    fs::TempDir tmp;
    stdfs::create_directories(tmp.path() / "t/torch/lib");
    compile_so(tmp.path() / "t/torch/lib/libdep.so", "int dep() { return 1; }\n");
    compile_so(tmp.path() / "t/torch/lib/libc10.so", std::string(kGoodLib) + "int dep(); int use() { return dep(); }\n",
               {"-L" + (tmp.path() / "t/torch/lib").string(), "-ldep", "-Wl,-rpath,$ORIGIN"});
    auto r = check(make_wheel(tmp.path(), tmp.path() / "t"));
    INFO(lines(r));
    CHECK(r.ok());
    CHECK(r.elf_files == 2);
    CHECK(r.checks == std::vector<std::string>{"record", "links", "abi"});
}

TEST_CASE("check: a missing NEEDED names the file and the library") {
    fs::TempDir tmp;
    stdfs::create_directories(tmp.path() / "build");
    stdfs::create_directories(tmp.path() / "t/torch/lib");
    compile_so(tmp.path() / "build/libmissing.so", "int dep() { return 1; }\n");
    compile_so(tmp.path() / "t/torch/lib/libc10.so", std::string(kGoodLib) + "int dep(); int use() { return dep(); }\n",
               {"-L" + (tmp.path() / "build").string(), "-lmissing", "-Wl,-rpath,$ORIGIN"});
    auto r = check(make_wheel(tmp.path(), tmp.path() / "t"));
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].line() ==
          "demo-1.0-cp312-cp312-linux_x86_64.whl: torch/lib/libc10.so: NEEDED libmissing.so not found (RPATH "
          "'$ORIGIN', LD_LIBRARY_PATH unset; not in the artifact or its bundled libraries nor on the platform "
          "allow-list)");
}

TEST_CASE("check: an absolute build RPATH is an error naming it") {
    fs::TempDir tmp;
    stdfs::create_directories(tmp.path() / "t/torch/lib");
    compile_so(tmp.path() / "t/torch/lib/libc10.so", kGoodLib, {"-Wl,-rpath,/home/builder/work/build/lib"});
    auto r = check(make_wheel(tmp.path(), tmp.path() / "t"));
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].member == "torch/lib/libc10.so");
    CHECK(r.findings[0].problem ==
          "absolute RPATH entry '/home/builder/work/build/lib' (a build or host path; use $ORIGIN)");
}

TEST_CASE("check: a wrong RECORD hash names the file") {
    fs::TempDir tmp;
    stdfs::create_directories(tmp.path() / "t/torch");
    REQUIRE(fs::write_file_atomic(tmp.path() / "t/torch/__init__.py", "x = 1\n"));
    auto whl = make_wheel(tmp.path(), tmp.path() / "t", [](std::string& rec) {
        auto at = rec.find("torch/__init__.py,sha256=") + 25;
        rec[at] = rec[at] == 'A' ? 'B' : 'A';
    });
    auto r = check(whl);
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].member == "torch/__init__.py");
    CHECK(r.findings[0].problem.rfind("RECORD hash sha256=", 0) == 0);
    CHECK(r.findings[0].problem.find("does not match the file") != std::string::npos);
}

TEST_CASE("check: RECORD lists exactly what is there") {
    fs::TempDir tmp;
    stdfs::create_directories(tmp.path() / "t/torch");
    REQUIRE(fs::write_file_atomic(tmp.path() / "t/torch/__init__.py", "x = 1\n"));
    auto whl = make_wheel(tmp.path(), tmp.path() / "t", [](std::string& rec) {
        rec.erase(rec.find("torch/__init__.py"), rec.find('\n', rec.find("torch/__init__.py")) - rec.find("torch/__init__.py") + 1);
        rec += "torch/gone.py,sha256=AAAA,3\n";
    });
    auto r = check(whl);
    CHECK(lines(r) ==
          "demo-1.0-cp312-cp312-linux_x86_64.whl: demo-1.0.dist-info/RECORD:3: torch/gone.py is listed but not in the wheel\n"
          "demo-1.0-cp312-cp312-linux_x86_64.whl: torch/__init__.py: not listed in demo-1.0.dist-info/RECORD\n");
}

TEST_CASE("check: old-ABI std::string in c10:: is an error naming the symbol") {
    fs::TempDir tmp;
    stdfs::create_directories(tmp.path() / "t/torch/lib");
    compile_so(tmp.path() / "t/torch/lib/libc10.so",
               "#include <string>\nnamespace c10 { void set_name(const std::string&) {} }\n",
               {"-D_GLIBCXX_USE_CXX11_ABI=0"});
    auto r = check(make_wheel(tmp.path(), tmp.path() / "t"));
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].line() == "demo-1.0-cp312-cp312-linux_x86_64.whl: torch/lib/libc10.so: pre-C++11-ABI symbol "
                                  "exported: c10::set_name(std::string const&)");
}

TEST_CASE("old_abi_symbol: the c10/at/torch namespaces and the old string and list only") {
    CHECK(old_abi_symbol("_ZN3c101fERKSs") == "c10::f(std::string const&)");
    CHECK(old_abi_symbol("_ZN3c101gERSt4listIiSaIiEE") == "c10::g(std::list<int, std::allocator<int> >&)");
    CHECK(old_abi_symbol("_ZN2at1fERKSs") == "at::f(std::string const&)");
    CHECK(old_abi_symbol("_ZN3c101fERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE").empty());
    CHECK(old_abi_symbol("_ZN3c101gERNSt7__cxx114listIiSaIiEEE").empty());
    CHECK(old_abi_symbol("_ZN3foo1fERKSs").empty());  // not a torch namespace
    CHECK(old_abi_symbol("_ZN3c101fESt17basic_string_viewIcSt11char_traitsIcEE").empty());
    CHECK(old_abi_symbol("c10_plain").empty());
}

TEST_CASE("urlsafe_b64_nopad and parse_csv_row as RECORD writes them") {
    CHECK(urlsafe_b64_nopad("") == "");
    CHECK(urlsafe_b64_nopad("f") == "Zg");
    CHECK(urlsafe_b64_nopad("fo") == "Zm8");
    CHECK(urlsafe_b64_nopad("foo") == "Zm9v");
    CHECK(urlsafe_b64_nopad("\xfb\xff") == "-_8");
    CHECK(parse_csv_row("a,b,c") == std::vector<std::string>{"a", "b", "c"});
    CHECK(parse_csv_row("\"a,b\",\"x\"\"y\",3") == std::vector<std::string>{"a,b", "x\"y", "3"});
}

TEST_CASE("check: a file of no known kind is an input error") {
    fs::TempDir tmp;
    REQUIRE(fs::write_file_atomic(tmp.path() / "x.txt", "x"));
    auto r = check_artifact(tmp.path() / "x.txt", {});
    REQUIRE(!r);
    CHECK(r.error().message == "not a binary splitforge checks");
}

// A libtorch archive (its layout, one good library) whose TorchConfig.cmake
// is `config`.
stdfs::path libtorch_zip(const stdfs::path& dir, const std::string& config) {
    stdfs::path t = dir / "t";
    stdfs::create_directories(t / "libtorch/lib");
    stdfs::create_directories(t / "libtorch/share/cmake/Torch");
    compile_so(t / "libtorch/lib/libtorch.so", kGoodLib);
    REQUIRE(fs::write_file_atomic(t / "libtorch/share/cmake/Torch/TorchConfig.cmake", config));
    REQUIRE(fs::write_file_atomic(t / "libtorch/build-version", "0.3.0+cpu\n"));
    REQUIRE(fs::write_file_atomic(t / "libtorch/build-hash", "0\n"));
    stdfs::path zip = dir / "libtorch-cxx11-abi-shared-with-deps-0.3.0+cpu.zip";
    auto out = archive::OutputFile::create(zip);
    REQUIRE(out);
    archive::ZipWriter w(**out, 315532800);
    for (const auto& rel : list_tree(t)) REQUIRE(w.add(rel, *fs::read_file(t / rel)));
    REQUIRE(w.finish());
    REQUIRE((*out)->commit());
    return zip;
}

TEST_CASE("check: a libtorch archive whose find_package(Torch) fails names TorchConfig.cmake") {
    INFO("cmake not on PATH (scripts/deps.sh installs it)");
    REQUIRE(process::find_executable("cmake", process::current_env()["PATH"]));
    fs::TempDir tmp;
    auto zip = libtorch_zip(tmp.path(), "message(FATAL_ERROR \"this TorchConfig is broken\")\n");
    CheckOptions o;
    o.consumer = CheckOptions::Consumer::build_and_run;
    auto r = check_artifact(zip, o);
    REQUIRE(r);
    INFO(lines(*r));
    REQUIRE(r->findings.size() == 1);
    CHECK(r->findings[0].member == "libtorch/share/cmake/Torch/TorchConfig.cmake");
    CHECK(r->findings[0].problem.rfind("find_package(Torch) failed: ", 0) == 0);
    CHECK(r->findings[0].problem.find("this TorchConfig is broken") != std::string::npos);
    CHECK(r->checks == std::vector<std::string>{"links", "abi", "consumer"});
}

// An archive from anywhere is untrusted input: by default its CMake code
// never runs, so a TorchConfig.cmake that writes outside the scratch dir
// writes nothing. Asked for (--consumer), it runs, with HOME in the scratch dir.
TEST_CASE("check: a hostile TorchConfig.cmake is not executed unless the consumer is asked for") {
    INFO("cmake not on PATH (scripts/deps.sh installs it)");
    REQUIRE(process::find_executable("cmake", process::current_env()["PATH"]));
    fs::TempDir tmp;
    const stdfs::path victim = tmp.path() / "outside" / "pwned";
    auto zip = libtorch_zip(tmp.path(), "file(WRITE \"" + victim.string() + "\" \"owned\")\n"
                                        "file(WRITE \"$ENV{HOME}/home-file\" \"x\")\n"
                                        "message(FATAL_ERROR \"HOME=$ENV{HOME}\")\n");
    auto r = check_artifact(zip, {});
    REQUIRE(r);
    CHECK(r->ok());
    CHECK(r->checks == std::vector<std::string>{"links", "abi"});
    CHECK(!stdfs::exists(victim));

    CheckOptions o;
    o.consumer = CheckOptions::Consumer::build_and_run;
    auto asked = check_artifact(zip, o);
    REQUIRE(asked);
    CHECK(stdfs::exists(victim));  // the test above would have seen a write
    REQUIRE(asked->findings.size() == 1);
    const std::string home = asked->findings[0].problem;
    INFO(home);
    CHECK(home.find("HOME=$WORK") != std::string::npos);  // the scratch dir, masked
    CHECK(!stdfs::exists(stdfs::path(process::current_env()["HOME"]) / "home-file"));
}

namespace {

// What auditwheel's machine, UCS2 and PyFPE policies catch, one crafted
// manylinux-tagged wheel each: an extension module linked for x86-64-v3, a
// Python 2 module built against a narrow-unicode Python (its
// PyUnicodeUCS2_* reference a FUNC, from a stub libpython in the wheel), a
// module using PyFPE_jbuf.
enum class Crafted { isa, ucs2, pyfpe };

struct CraftedWheel {
    stdfs::path wheel;
    std::string member;
};

CraftedWheel crafted_wheel(const stdfs::path& dir, Crafted what) {
    const stdfs::path t = dir / "t";
    stdfs::create_directories(t / "demo");
    CraftedWheel w;
    if (what == Crafted::isa) {
        w.member = "demo/_ext.cpython-312-x86_64-linux-gnu.so";
        compile_so(t / w.member, "extern \"C\" void* PyInit__ext() { return 0; }\n",
                   {"-march=x86-64-v3", "-Wl,-z,x86-64-v3"});
    } else if (what == Crafted::ucs2) {
        w.member = "demo/foo.so";
        compile_so(t / "demo/libpystub.so", "extern \"C\" void* PyUnicodeUCS2_FromString(const char*) { return 0; }\n");
        compile_so(t / w.member,
                   "extern \"C\" void* PyUnicodeUCS2_FromString(const char*);\n"
                   "extern \"C\" void initfoo() { PyUnicodeUCS2_FromString(\"x\"); }\n",
                   {"-L" + (t / "demo").string(), "-lpystub", "-Wl,-rpath,$ORIGIN"});
    } else {
        w.member = "demo/_fpe.cpython-312-x86_64-linux-gnu.so";
        compile_so(t / w.member, "extern \"C\" char PyFPE_jbuf[];\nextern \"C\" void* PyInit__fpe() { return PyFPE_jbuf; }\n");
    }
    w.wheel = make_wheel(dir, t, {}, "manylinux_2_17_x86_64");
    return w;
}

}  // namespace

TEST_CASE("check: a manylinux wheel that no manylinux policy admits names the file and why") {
#if !defined(__x86_64__)
    test::skip("the crafted wheels are x86_64 ones");
#endif
    fs::TempDir tmp;
    const auto what = GENERATE(Crafted::isa, Crafted::ucs2, Crafted::pyfpe);
    const auto w = crafted_wheel(tmp.path(), what);
    auto r = check(w.wheel);
    INFO(lines(r));
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].member == w.member);
    const std::string why = what == Crafted::isa    ? "needs the x86_64_v3 instruction set (GNU_PROPERTY_X86_ISA_1_NEEDED)"
                            : what == Crafted::ucs2 ? "is built against a narrow-unicode (UCS2) Python: it uses "
                                                      "PyUnicodeUCS2_FromString"
                                                    : "uses PyFPE_jbuf, which only a Python built --with-fpectl has";
    CHECK(r.findings[0].problem.rfind(why, 0) == 0);
    CHECK(str::ends_with(r.findings[0].problem,
                         ": no manylinux policy admits it, yet the wheel is tagged manylinux_2_17_x86_64"));
    CHECK(r.checks == std::vector<std::string>{"record", "links", "abi", "manylinux"});
}

TEST_CASE("check: the same files in a linux_x86_64 wheel are fine (that tag promises none of it)") {
    fs::TempDir tmp;
    stdfs::create_directories(tmp.path() / "t/demo");
    compile_so(tmp.path() / "t/demo/_fpe.cpython-312-x86_64-linux-gnu.so",
               "extern \"C\" char PyFPE_jbuf[];\nextern \"C\" void* PyInit__fpe() { return PyFPE_jbuf; }\n");
    auto r = check(make_wheel(tmp.path(), tmp.path() / "t"));
    INFO(lines(r));
    CHECK(r.ok());
    CHECK(r.checks == std::vector<std::string>{"record", "links", "abi"});
}

// The yardstick: auditwheel 6.8.1's `show` on the same crafted wheels says
// the wheel is linux_x86_64 only, for the same reason.
TEST_CASE("check: auditwheel show agrees on the crafted ISA, UCS2 and PyFPE wheels") {
    const char* aw_env = std::getenv("SF_AUDITWHEEL");
    const stdfs::path aw = stdfs::path(aw_env ? aw_env : "/tmp/auditwheel") / "bin/auditwheel";
    std::error_code ec;
    if (!stdfs::exists(aw, ec))
        test::skip("auditwheel is not installed (bash ../shared/peer/auditwheel-setup.sh installs it into "
                   "/tmp/auditwheel; SF_AUDITWHEEL names another place)");
#if !defined(__x86_64__)
    test::skip("the crafted wheels are x86_64 ones");
#endif
    fs::TempDir tmp;
    const auto what = GENERATE(Crafted::isa, Crafted::ucs2, Crafted::pyfpe);
    const auto w = crafted_wheel(tmp.path(), what);
    CHECK_FALSE(check(w.wheel).ok());
    auto r = process::capture({{aw.string(), "show", "--json", w.wheel.string()}, tmp.path(), process::current_env()});
    REQUIRE(r);
    INFO(r->out << r->err);
    REQUIRE(r->exit_code == 0);
    auto j = nlohmann::json::parse(r->out);
    CHECK(j["overall_tag"] == "linux_x86_64");
    CHECK(j["unsupported_isa"] == (what == Crafted::isa));
    CHECK(j["ucs2"] == (what == Crafted::ucs2));
    CHECK(j["pyfpe"] == (what == Crafted::pyfpe));
}
