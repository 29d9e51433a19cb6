// binary/manylinux: the policy table, version admission, the allow-list and
// the oldest policy a set of requirements allows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "binary/manylinux.hpp"
#include "package/elf_symbols.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"

using namespace sf;
using namespace sf::binary;
namespace stdfs = std::filesystem;

namespace {

ManylinuxPolicy policy(std::string_view arch, int minor) {
    for (const auto& p : manylinux_policies(arch))
        if (p.glibc_minor == minor) return p;
    FAIL("no manylinux_2_" << minor << " for " << arch);
    return {};
}

ManylinuxRequirements req(std::set<std::string> versions, std::set<std::string> libs = {}) {
    ManylinuxRequirements r;
    r.arch = "x86_64";
    r.versions = std::move(versions);
    r.system_libs = std::move(libs);
    return r;
}

std::string oldest(const ManylinuxRequirements& r) {
    auto p = oldest_policy(r);
    return p ? p->name() : "error: " + p.error().message;
}

// auditwheel's own table, where ../shared/peer/auditwheel-setup.sh put it.
std::optional<stdfs::path> auditwheel_policy_json() {
    const char* aw = std::getenv("SF_AUDITWHEEL");
    const stdfs::path root = aw ? aw : "/tmp/auditwheel";
    std::error_code ec;
    if (!stdfs::is_directory(root / "lib", ec)) return std::nullopt;
    for (const auto& d : stdfs::directory_iterator(root / "lib", ec)) {
        auto p = d.path() / "site-packages/auditwheel/policy/manylinux-policy.json";
        if (stdfs::exists(p, ec)) return p;
    }
    return std::nullopt;
}

}  // namespace

TEST_CASE("manylinux: the policies of an architecture, oldest first, with their legacy aliases") {
    auto x86 = manylinux_policies("x86_64");
    REQUIRE(x86.size() == 16);
    CHECK(x86.front().name() == "manylinux_2_5");
    CHECK(x86.front().tags("x86_64") == std::vector<std::string>{"manylinux_2_5_x86_64", "manylinux1_x86_64"});
    CHECK(x86[1].tags("x86_64") == std::vector<std::string>{"manylinux_2_12_x86_64", "manylinux2010_x86_64"});
    CHECK(x86[2].tags("x86_64") == std::vector<std::string>{"manylinux_2_17_x86_64", "manylinux2014_x86_64"});
    CHECK(x86[3].tags("x86_64") == std::vector<std::string>{"manylinux_2_24_x86_64"});
    CHECK(x86.back().name() == "manylinux_2_41");
    CHECK(std::is_sorted(x86.begin(), x86.end(),
                         [](const auto& a, const auto& b) { return a.glibc_minor < b.glibc_minor; }));
    auto arm = manylinux_policies("aarch64");
    REQUIRE_FALSE(arm.empty());
    CHECK(arm.front().tag("aarch64") == "manylinux_2_17_aarch64");
    CHECK(manylinux_policies("sparc").empty());
}

TEST_CASE("manylinux: admits_version") {
    SECTION("a glibc version from the policy named after it on") {
        CHECK_FALSE(admits_version(policy("x86_64", 12), "x86_64", "GLIBC_2.17"));
        CHECK(admits_version(policy("x86_64", 17), "x86_64", "GLIBC_2.17"));
        CHECK(admits_version(policy("x86_64", 41), "x86_64", "GLIBC_2.2.5"));
        CHECK(admits_version(policy("x86_64", 34), "x86_64", "GLIBC_2.34"));
        CHECK_FALSE(admits_version(policy("x86_64", 34), "x86_64", "GLIBC_2.35"));
    }
    SECTION("versions glibc never defined, and private ones, no policy admits") {
        for (const auto& p : manylinux_policies("x86_64")) {
            CHECK_FALSE(admits_version(p, "x86_64", "GLIBC_2.19"));
            CHECK_FALSE(admits_version(p, "x86_64", "GLIBC_PRIVATE"));
            CHECK_FALSE(admits_version(p, "x86_64", "GLIBCXX_3.4.99"));
        }
    }
    SECTION("libstdc++, its ABI and libgcc") {
        CHECK_FALSE(admits_version(policy("x86_64", 17), "x86_64", "GLIBCXX_3.4.21"));
        CHECK(admits_version(policy("x86_64", 24), "x86_64", "GLIBCXX_3.4.21"));
        CHECK(admits_version(policy("x86_64", 17), "x86_64", "CXXABI_TM_1"));
        CHECK_FALSE(admits_version(policy("x86_64", 12), "x86_64", "CXXABI_TM_1"));
        CHECK(admits_version(policy("x86_64", 24), "x86_64", "CXXABI_FLOAT128"));
        CHECK_FALSE(admits_version(policy("aarch64", 41), "aarch64", "CXXABI_FLOAT128"));
        CHECK(admits_version(policy("x86_64", 5), "x86_64", "GCC_4.2.0"));
        CHECK_FALSE(admits_version(policy("x86_64", 24), "x86_64", "GCC_7.0.0"));
    }
    SECTION("families no policy names are not its business") {
        CHECK(admits_version(policy("x86_64", 5), "x86_64", "OPENSSL_3.0.0"));
        CHECK(admits_version(policy("x86_64", 5), "x86_64", "SFDEMO_1.0"));
    }
}

TEST_CASE("manylinux: the allow-list grows with the policies") {
    CHECK(allowed(policy("x86_64", 5), "libc.so.6"));
    CHECK(allowed(policy("x86_64", 5), "libstdc++.so.6"));
    CHECK_FALSE(allowed(policy("x86_64", 5), "libexpat.so.1"));
    CHECK(allowed(policy("x86_64", 12), "libexpat.so.1"));
    CHECK_FALSE(allowed(policy("x86_64", 17), "libmvec.so.1"));
    CHECK(allowed(policy("x86_64", 24), "libmvec.so.1"));
    CHECK_FALSE(allowed(policy("x86_64", 41), "libopenblas.so.0"));
    CHECK_FALSE(allowed(policy("x86_64", 41), "libcudart.so.13"));
    // The dynamic loader: always the system's.
    CHECK(allowed(policy("x86_64", 5), "ld-linux-x86-64.so.2"));
    CHECK(allowed(policy("aarch64", 17), "ld-linux-aarch64.so.1"));
    CHECK(allowed(policy("x86_64", 17), "ld64.so.2"));
}

TEST_CASE("manylinux: oldest_policy") {
    SECTION("nothing required: the oldest") { CHECK(oldest(req({})) == "manylinux_2_5"); }
    SECTION("the newest version of each family decides") {
        CHECK(oldest(req({"GLIBC_2.2.5", "GLIBC_2.14", "GLIBCXX_3.4.9"})) == "manylinux_2_17");
        CHECK(oldest(req({"GLIBC_2.14", "GLIBCXX_3.4.21", "CXXABI_1.3.9"})) == "manylinux_2_24");
        CHECK(oldest(req({"GLIBC_2.34", "GLIBCXX_3.4.30", "GCC_3.0"})) == "manylinux_2_35");
    }
    SECTION("an allowed system library newer than the versions asks for a newer policy") {
        CHECK(oldest(req({"GLIBC_2.3"}, {"libm.so.6", "libmvec.so.1"})) == "manylinux_2_24");
    }
    SECTION("a library no policy allows is an error naming it") {
        CHECK(oldest(req({"GLIBC_2.17"}, {"libopenblas.so.0"})).find("libopenblas.so.0") != std::string::npos);
    }
    SECTION("a version no policy knows is an error naming it") {
        CHECK(oldest(req({"GLIBC_2.17", "GLIBC_PRIVATE"})).find("GLIBC_PRIVATE") != std::string::npos);
    }
    SECTION("a blacklisted libc symbol rules out the policies that forbid it") {
        auto r = req({"GLIBC_2.3"});
        r.blacklisted.emplace("libc.so.6", "__cxa_thread_atexit_impl");
        CHECK(oldest(r) == "manylinux_2_24");
        CHECK(refusals(policy("x86_64", 17), r) ==
              std::vector<std::string>{"symbol __cxa_thread_atexit_impl of libc.so.6"});
    }
    SECTION("an architecture without policies") {
        auto r = req({});
        r.arch = "sparc";
        CHECK(oldest(r).find("sparc") != std::string::npos);
    }
}

TEST_CASE("manylinux: add_requirements from a library compiled here") {
    process::Command c;
    c.env = process::current_env();
    INFO("needs g++ on PATH (bash scripts/deps.sh installs it)");
    REQUIRE(process::find_executable("g++", c.env["PATH"]).has_value());
    fs::TempDir tmp("sf-manylinux");
    test::put(tmp.path() / "a.cpp",
              "#include <string>\n#include <cstdio>\n"
              "std::string f(const std::string& s) { std::printf(\"%s\", s.c_str()); return s + s; }\n");
    const auto so = tmp.path() / "liba.so";
    c.argv = {"g++", "-shared", "-fPIC", "-o", so.string(), (tmp.path() / "a.cpp").string()};
    auto r = process::capture(c);
    REQUIRE(r);
    REQUIRE(r->exit_code == 0);
    auto elf = package::read_elf_symbols(so);
    REQUIRE(elf);
    ManylinuxRequirements req;
    REQUIRE(add_requirements(req, *elf, so.string()));
    CHECK(req.arch == package::machine_arch(elf->machine, elf->little_endian));
    CHECK(std::any_of(req.versions.begin(), req.versions.end(),
                      [](const std::string& v) { return v.rfind("GLIBC_2.", 0) == 0; }));
    CHECK(std::any_of(req.versions.begin(), req.versions.end(),
                      [](const std::string& v) { return v.rfind("GLIBCXX_3.4", 0) == 0; }));
    // This machine's toolchain is one some policy admits.
    auto p = oldest_policy(req);
    INFO((p ? "" : p.error().str()));
    CHECK(p);
    SECTION("an ELF file of another architecture is refused, naming it") {
        package::ElfSymbols other = *elf;
        other.machine = elf->machine == 62 ? 183 : 62;
        auto bad = add_requirements(req, other, "other.so");
        REQUIRE_FALSE(bad);
        CHECK(bad.error().loc.file == "other.so");
    }
}

TEST_CASE("manylinux: the table is auditwheel's, policy by policy") {
    auto json_path = auditwheel_policy_json();
    if (!json_path)
        test::skip("auditwheel is not installed (bash ../shared/peer/auditwheel-setup.sh installs it into "
                   "/tmp/auditwheel; SF_AUDITWHEEL names another place)");
    auto doc = nlohmann::json::parse(test::slurp(*json_path));
    int compared = 0;
    for (const auto& p : doc) {
        const std::string name = p["name"];
        if (name == "linux") continue;
        const int minor = std::stoi(name.substr(std::string("manylinux_2_").size()));
        for (std::string arch : {"x86_64", "aarch64"}) {
            if (!p["symbol_versions"].contains(arch)) {
                auto ps = manylinux_policies(arch);
                CHECK(std::none_of(ps.begin(), ps.end(), [&](const auto& q) { return q.glibc_minor == minor; }));
                continue;
            }
            INFO(name << " " << arch);
            const ManylinuxPolicy ours = policy(arch, minor);
            const auto aliases = p["aliases"].get<std::vector<std::string>>();
            CHECK(std::string(ours.alias) == (aliases.empty() ? "" : aliases.front()));
            // Every version auditwheel lists we admit, and every version any
            // policy lists that this one does not, we refuse.
            std::set<std::string> all;
            for (const auto& q : doc)
                if (q["symbol_versions"].contains(arch))
                    for (const auto& [fam, vs] : q["symbol_versions"][arch].items())
                        for (const auto& v : vs) all.insert(fam + "_" + v.get<std::string>());
            std::set<std::string> listed;
            for (const auto& [fam, vs] : p["symbol_versions"][arch].items())
                for (const auto& v : vs) listed.insert(fam + "_" + v.get<std::string>());
            for (const auto& v : all) CHECK(admits_version(ours, arch, v) == (listed.count(v) > 0));
            for (const auto& lib : p["lib_whitelist"]) CHECK(allowed(ours, lib.get<std::string>()));
            CHECK_FALSE(allowed(ours, "libnot-on-any-list.so.1"));
            for (const auto& [lib, syms] : p["blacklist"].items())
                for (const auto& s : syms) {
                    ManylinuxRequirements r;
                    r.arch = arch;
                    r.blacklisted.emplace(lib, s.get<std::string>());
                    CHECK_FALSE(refusals(ours, r).empty());
                }
            ++compared;
        }
    }
    CHECK(compared == 16 + 14);
}

namespace {

// Compiles C++ `code` into tmp/`name` (a shared library) with `flags`;
// nullopt when the toolchain refuses the flags (the caller skips).
std::optional<package::ElfSymbols> compiled(const stdfs::path& tmp, const std::string& name, const std::string& code,
                                            std::vector<std::string> flags = {}) {
    process::Command c;
    c.env = process::current_env();
    INFO("needs g++ on PATH (bash scripts/deps.sh installs it)");
    REQUIRE(process::find_executable("g++", c.env["PATH"]).has_value());
    test::put(tmp / (name + ".cpp"), code);
    c.argv = {"g++", "-shared", "-fPIC", "-o", (tmp / name).string(), (tmp / (name + ".cpp")).string()};
    c.argv.insert(c.argv.end(), flags.begin(), flags.end());
    auto r = process::capture(c);
    REQUIRE(r);
    if (r->exit_code != 0) return std::nullopt;
    auto elf = package::read_elf_symbols(tmp / name);
    REQUIRE(elf);
    return *elf;
}

std::vector<std::string> linux_only_of(const package::ElfSymbols& elf, const std::string& file) {
    ManylinuxRequirements req;
    REQUIRE(add_requirements(req, elf, file));
    std::vector<std::string> out;
    for (const auto& l : req.linux_only) out.push_back(l.file + ": " + l.why);
    return out;
}

}  // namespace

TEST_CASE("manylinux: x86_isa_level reads ISA_1_NEEDED as auditwheel does") {
    CHECK(x86_isa_level(0) == "");
    CHECK(x86_isa_level(1) == "");  // the baseline bit alone
    CHECK(x86_isa_level(1 | 2) == "x86_64_v2");
    CHECK(x86_isa_level(1 | 4) == "x86_64_v3");
    CHECK(x86_isa_level(2 | 4) == "x86_64_v3");  // the highest level set wins
    CHECK(x86_isa_level(1 | 8) == "x86_64_v4");
    CHECK(x86_isa_level(0x10) == "unknown");
}

TEST_CASE("manylinux: a file linked for x86-64-v3 fits no policy, naming the file and the level") {
#if !defined(__x86_64__)
    test::skip("not an x86_64 machine: its compilers write no x86-64 ISA notes");
#endif
    fs::TempDir tmp("sf-manylinux");
    const std::string code = "int f(int x) { return x * 3; }\n";
    auto v3 = compiled(tmp.path(), "libv3.so", code, {"-march=x86-64-v3", "-Wl,-z,x86-64-v3"});
    if (!v3) test::skip("this toolchain cannot write x86-64 ISA notes (-Wl,-z,x86-64-v3 needs binutils 2.36)");
    CHECK(x86_isa_level(v3->x86_isa_needed) == "x86_64_v3");
    auto v2 = compiled(tmp.path(), "libv2.so", code, {"-march=x86-64-v2", "-Wl,-z,x86-64-v2"});
    REQUIRE(v2);
    CHECK(x86_isa_level(v2->x86_isa_needed) == "x86_64_v2");
    auto base = compiled(tmp.path(), "libbase.so", code);
    REQUIRE(base);
    CHECK(x86_isa_level(base->x86_isa_needed) == "");
    CHECK(linux_only_of(*base, "torch/lib/libbase.so").empty());

    ManylinuxRequirements req;
    REQUIRE(add_requirements(req, *base, "torch/lib/libbase.so"));
    REQUIRE(add_requirements(req, *v3, "torch/lib/libv3.so"));
    auto p = oldest_policy(req);
    REQUIRE_FALSE(p);
    CHECK(p.error().str() ==
          "torch/lib/libv3.so: needs the x86_64_v3 instruction set (GNU_PROPERTY_X86_ISA_1_NEEDED), above the x86_64 "
          "baseline every manylinux tag promises: no manylinux policy admits it (build without -march=x86-64-v3 "
          "and -Wl,-z,x86-64-v3, or pick the level at run time; auditwheel refuses it too ('depends on unsupported "
          "ISA extensions'))");
}

TEST_CASE("manylinux: UCS2 symbols count in Python 2 extension modules only, as auditwheel looks") {
    fs::TempDir tmp("sf-manylinux");
    // A stub libpython defines the function, so the module's reference is a
    // FUNC, as auditwheel requires of a UCS2 symbol.
    auto stub = compiled(tmp.path(), "libpystub.so",
                         "extern \"C\" void* PyUnicodeUCS2_FromString(const char*) { return 0; }\n");
    REQUIRE(stub);
    const std::vector<std::string> link = {"-L" + tmp.path().string(), "-lpystub"};
    const std::string use = "extern \"C\" void* PyUnicodeUCS2_FromString(const char*);\n";
    auto py2 = compiled(tmp.path(), "foo.so", use + "extern \"C\" void initfoo() { PyUnicodeUCS2_FromString(\"x\"); }\n", link);
    REQUIRE(py2);
    CHECK(python_extension_major(*py2, "pkg/foo.so") == 2);
    CHECK(linux_only_of(*py2, "pkg/foo.so") ==
          std::vector<std::string>{"pkg/foo.so: is built against a narrow-unicode (UCS2) Python: it uses "
                                   "PyUnicodeUCS2_FromString"});
    // The module's name is the file's up to its first dot: not foo here.
    CHECK(linux_only_of(*py2, "pkg/bar.so").empty());
    auto py3 = compiled(tmp.path(), "foo3.so",
                        use + "extern \"C\" void* PyInit_foo3() { return PyUnicodeUCS2_FromString(\"x\"); }\n", link);
    REQUIRE(py3);
    CHECK(python_extension_major(*py3, "foo3.cpython-312-x86_64-linux-gnu.so") == 3);
    CHECK(linux_only_of(*py3, "foo3.cpython-312-x86_64-linux-gnu.so").empty());
}

TEST_CASE("manylinux: PyFPE_jbuf in any Python extension module fits no policy") {
    fs::TempDir tmp("sf-manylinux");
    const std::string use = "extern \"C\" char PyFPE_jbuf[];\n";
    auto py3 = compiled(tmp.path(), "fpe.so", use + "extern \"C\" void* PyInit_fpe() { return PyFPE_jbuf; }\n");
    REQUIRE(py3);
    CHECK(linux_only_of(*py3, "fpe.cpython-312-x86_64-linux-gnu.so") ==
          std::vector<std::string>{"fpe.cpython-312-x86_64-linux-gnu.so: uses PyFPE_jbuf, which only a Python built "
                                   "--with-fpectl has (PEP 513)"});
    auto py2 = compiled(tmp.path(), "fpe2.so", use + "extern \"C\" void* initfpe2() { return PyFPE_jbuf; }\n");
    REQUIRE(py2);
    CHECK(linux_only_of(*py2, "fpe2.so").size() == 1);
    // A library that is no extension module may reference it: auditwheel
    // looks at extension modules only.
    auto lib = compiled(tmp.path(), "libfpe.so", use + "extern \"C\" void* f() { return PyFPE_jbuf; }\n");
    REQUIRE(lib);
    CHECK(linux_only_of(*lib, "libfpe.so").empty());
}
