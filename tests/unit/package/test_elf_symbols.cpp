#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "package/elf_symbols.hpp"
#include "process/process.hpp"
#include "testproc.hpp"
#include "testutil.hpp"
#include "unit/package/fixture.hpp"
#include "util/strings.hpp"

using namespace sf;
using namespace sf::package;
namespace stdfs = std::filesystem;

namespace {

const VersionNeed* need_of(const ElfSymbols& s, std::string_view file) {
    for (const auto& n : s.needs)
        if (n.file == file) return &n;
    return nullptr;
}

const DynamicSymbol* symbol(const ElfSymbols& s, std::string_view name) {
    for (const auto& y : s.symbols)
        if (y.name == name) return &y;
    return nullptr;
}

bool has_version(const VersionNeed* n, std::string_view prefix) {
    return n && std::any_of(n->versions.begin(), n->versions.end(),
                            [&](const std::string& v) { return str::starts_with(v, prefix); });
}

// A C++ library that needs libstdc++ (std::string, iostream) and libc, with
// one exported function, one exported object and one hidden function, and
// its own version script: one verdef.
stdfs::path make_library(const stdfs::path& dir) {
    test::put(dir / "a.cpp",
              "#include <string>\n#include <iostream>\n#include <cstdio>\n"
              "int exported_value = 42;\n"
              "std::string sf_greet(const std::string& s) { std::cout << s; return s + \"!\"; }\n"
              "__attribute__((visibility(\"hidden\"))) int sf_hidden() { return 1; }\n"
              "extern \"C\" int sf_plain(int x) { std::printf(\"%d\", x); return x + sf_hidden(); }\n");
    test::put(dir / "a.map", "SFDEMO_1.0 { global: *; };\n");
    const stdfs::path so = dir / "liba.so";
    test::run_ok({"g++", "-shared", "-fPIC", "-O1", "-o", so.string(), (dir / "a.cpp").string(),
             "-Wl,--version-script=" + (dir / "a.map").string()});
    return so;
}

}  // namespace

TEST_CASE("read_elf_symbols: the versions a library requires of libc and libstdc++") {
    INFO("needs g++ on PATH (bash scripts/deps.sh installs it)");
    REQUIRE(test::have_tool("g++"));
    fs::TempDir tmp("sf-elfsym");
    auto syms = read_elf_symbols(make_library(tmp.path()));
    INFO((syms ? "" : syms.error().str()));
    REQUIRE(syms);
    CHECK(syms->is_elf);
    CHECK_FALSE(machine_arch(syms->machine, syms->little_endian).empty());
    const VersionNeed* libc = need_of(*syms, "libc.so.6");
    const VersionNeed* libstdcxx = need_of(*syms, "libstdc++.so.6");
    REQUIRE(libc);
    REQUIRE(libstdcxx);
    CHECK(has_version(libc, "GLIBC_2."));
    CHECK(has_version(libstdcxx, "GLIBCXX_3.4"));
    // Every required version is one of the needs' names, and no need is empty.
    for (const auto& n : syms->needs) CHECK_FALSE(n.versions.empty());
}

TEST_CASE("read_elf_symbols: defined and undefined dynamic symbols, with their versions") {
    INFO("needs g++ on PATH (bash scripts/deps.sh installs it)");
    REQUIRE(test::have_tool("g++"));
    fs::TempDir tmp("sf-elfsym");
    auto syms = read_elf_symbols(make_library(tmp.path()));
    REQUIRE(syms);
    SECTION("an exported C function, bound to the library's own version") {
        const DynamicSymbol* f = symbol(*syms, "sf_plain");
        REQUIRE(f);
        CHECK(f->defined);
        CHECK(f->type == SymbolType::func);
        CHECK(f->binding == SymbolBinding::global);
        CHECK(f->exported());
        CHECK(f->version == "SFDEMO_1.0");
    }
    SECTION("an exported object") {
        const DynamicSymbol* v = symbol(*syms, "exported_value");
        REQUIRE(v);
        CHECK(v->type == SymbolType::object);
        CHECK(v->exported());
    }
    SECTION("a mangled C++ function keeps its mangled name") {
        auto it = std::find_if(syms->symbols.begin(), syms->symbols.end(),
                               [](const DynamicSymbol& s) { return str::starts_with(s.name, "_Z8sf_greet"); });
        REQUIRE(it != syms->symbols.end());
        CHECK(it->exported());
    }
    SECTION("a hidden function is not in .dynsym") { CHECK_FALSE(symbol(*syms, "sf_hidden")); }
    SECTION("printf is undefined and bound to a GLIBC_ version") {
        const DynamicSymbol* p = symbol(*syms, "printf");
        REQUIRE(p);
        CHECK_FALSE(p->defined);
        CHECK_FALSE(p->exported());
        CHECK(str::starts_with(p->version, "GLIBC_2."));
    }
}

TEST_CASE("read_elf_symbols: a file that is not ELF is not an error, a malformed one names the file") {
    fs::TempDir tmp("sf-elfsym");
    SECTION("text") {
        test::put(tmp.path() / "t.txt", "hello\n");
        auto r = read_elf_symbols(tmp.path() / "t.txt");
        REQUIRE(r);
        CHECK_FALSE(r->is_elf);
        CHECK(r->symbols.empty());
    }
    SECTION("a truncated ELF file") {
        INFO("needs g++ on PATH (bash scripts/deps.sh installs it)");
        REQUIRE(test::have_tool("g++"));
        const stdfs::path so = make_library(tmp.path());
        std::string bytes = test::slurp(so);
        // Keep the header but drop the section headers it points to.
        test::put(tmp.path() / "cut.so", bytes.substr(0, bytes.size() / 2));
        auto r = read_elf_symbols(tmp.path() / "cut.so");
        REQUIRE_FALSE(r);
        CHECK(r.error().loc.file == (tmp.path() / "cut.so").string());
        CHECK(r.error().message.find("malformed ELF file") != std::string::npos);
    }
    SECTION("a .dynsym whose string table link points past the section headers") {
        INFO("needs g++ on PATH (bash scripts/deps.sh installs it)");
        REQUIRE(test::have_tool("g++"));
        const stdfs::path so = make_library(tmp.path());
        std::string b = test::slurp(so);
        REQUIRE(b.size() > 64);
        REQUIRE(b[4] == 2);  // ELFCLASS64 on the machines we build on
        auto get = [&](std::size_t at, int n) {
            std::uint64_t v = 0;
            for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
            return v;
        };
        const std::uint64_t shoff = get(40, 8), shentsize = get(58, 2), shnum = get(60, 2);
        bool patched = false;
        for (std::uint64_t i = 0; i < shnum; ++i) {
            const std::size_t s = shoff + i * shentsize;
            if (get(s + 4, 4) == 11) {  // SHT_DYNSYM: sh_link := 0xffff
                b[s + 40] = '\xff', b[s + 41] = '\xff';
                patched = true;
            }
        }
        REQUIRE(patched);
        test::put(tmp.path() / "bad.so", b);
        auto r = read_elf_symbols(tmp.path() / "bad.so");
        REQUIRE_FALSE(r);
        CHECK(r.error().str().find("bad.so") != std::string::npos);
        CHECK(r.error().message.find("string table link") != std::string::npos);
    }
}

TEST_CASE("machine_arch: the names wheels use") {
    CHECK(machine_arch(62) == "x86_64");
    CHECK(machine_arch(183) == "aarch64");
    CHECK(machine_arch(21, true) == "ppc64le");
    CHECK(machine_arch(21, false) == "ppc64");
    CHECK(machine_arch(9999).empty());
}
