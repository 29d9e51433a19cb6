// Hostile binaries given to `splitforge check`: ELF files whose headers lie
// about offsets and sizes (a .dynsym of 0x7fffffffffff bytes once made
// check abort on the allocation), and zips whose local headers and central
// directory disagree, or whose data does not match its CRC-32. Each is
// refused with one line naming the wheel and the member, and exits 1 or 2
// (never a signal); its benign twin, the same wheel minus the lie, passes.
// ELF files and wheels are crafted here, byte by byte.
#include <catch2/catch.hpp>

#include <cstring>

#include "archive/write.hpp"
#include "binary/check_record.hpp"
#include "package/elf.hpp"
#include "package/elf_symbols.hpp"
#include "process/process.hpp"
#include "testutil.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace stdfs = std::filesystem;

namespace {

const std::string kWheel = "torch-2.0.0-cp312-cp312-linux_x86_64.whl";
const std::string kLib = "torch/lib/libtorch.so";

void put(std::string& s, std::size_t at, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}
std::uint64_t get(const std::string& s, std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<std::size_t>(i)]);
    return v;
}

// A minimal ELF64 little-endian shared library: .dynstr, .dynsym (one
// exported function), .dynamic (NEEDED libc.so.6, SONAME), a GNU build-id
// note and a .symtab, then the section headers.
enum Sec { kNull, kDynstr, kDynsym, kDynamic, kNote, kSymtab, kCount };
constexpr std::size_t kShoff = 40, kShentsize = 64;

std::string elf() {
    struct S {
        std::uint32_t type;
        std::string data;
        std::uint32_t link = 0;
        std::uint64_t entsize = 0, align = 1;
    };
    std::string dynstr("\0libc.so.6\0libtorch.so\0torch_fn\0", 33);
    std::string sym(48, '\0');
    put(sym, 24 + 0, 23, 4);           // st_name "torch_fn"
    sym[24 + 4] = static_cast<char>(0x12);  // global func
    put(sym, 24 + 6, 5, 2);            // st_shndx: defined
    std::string dyn(48, '\0');
    put(dyn, 0, 1, 8), put(dyn, 8, 1, 8);    // DT_NEEDED libc.so.6
    put(dyn, 16, 14, 8), put(dyn, 24, 11, 8);  // DT_SONAME libtorch.so
    std::string note(16 + 20, '\0');
    put(note, 0, 4, 4), put(note, 4, 20, 4), put(note, 8, 3, 4);
    std::memcpy(note.data() + 12, "GNU", 4);
    for (int i = 0; i < 20; ++i) note[16 + static_cast<std::size_t>(i)] = static_cast<char>(i + 1);
    std::vector<S> secs = {{0, ""}, {3, dynstr}, {11, sym, kDynstr, 24, 8}, {6, dyn, kDynstr, 16, 8},
                           {7, note, 0, 0, 4}, {2, std::string(48, '\0'), kDynstr, 24, 8}};
    std::string out(64, '\0');
    std::memcpy(out.data(), "\x7f" "ELF\x02\x01\x01", 7);
    put(out, 16, 3, 2), put(out, 18, 62, 2), put(out, 20, 1, 4), put(out, 52, 64, 2);
    std::vector<std::uint64_t> offs;
    for (const auto& s : secs) {
        while (out.size() % 8) out += '\0';
        offs.push_back(s.data.empty() ? 0 : out.size());
        out += s.data;
    }
    while (out.size() % 8) out += '\0';
    put(out, kShoff, out.size(), 8), put(out, 58, kShentsize, 2), put(out, 60, secs.size(), 2);
    for (std::size_t i = 0; i < secs.size(); ++i) {
        std::string sh(kShentsize, '\0');
        put(sh, 4, secs[i].type, 4), put(sh, 24, offs[i], 8), put(sh, 32, secs[i].data.size(), 8);
        put(sh, 40, secs[i].link, 4), put(sh, 48, secs[i].align, 8), put(sh, 56, secs[i].entsize, 8);
        out += sh;
    }
    return out;
}

// Field `at` (sh_offset 24, sh_size 32) of section `i`'s header.
void set_section(std::string& e, std::size_t i, std::size_t at, std::uint64_t v) {
    put(e, static_cast<std::size_t>(get(e, kShoff, 8)) + i * kShentsize + at, v, 8);
}

std::string record_hash(const std::string& data) {
    std::string hex = sf::hash::sha256(data), raw;
    for (std::size_t i = 0; i < hex.size(); i += 2) raw += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return "sha256=" + sf::binary::urlsafe_b64_nopad(raw);
}

// The bytes of a STORED wheel holding `lib` as libtorch.so, with a right RECORD.
std::string wheel_bytes(const std::string& lib) {
    const std::string info = "torch-2.0.0.dist-info/";
    std::vector<std::pair<std::string, std::string>> members = {
        {info + "METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.0.0\n"},
        {info + "WHEEL", "Wheel-Version: 1.0\nTag: cp312-cp312-linux_x86_64\n"},
        {"torch/__init__.py", "import os\n"},
        {kLib, lib}};
    std::string record;
    for (const auto& [name, data] : members) record += name + "," + record_hash(data) + "," + std::to_string(data.size()) + "\n";
    members.push_back({info + "RECORD", record + info + "RECORD,,\n"});
    sf::fs::TempDir tmp("sf-sec-bin");
    auto out = sf::archive::OutputFile::create(tmp.path() / "w.whl");
    REQUIRE(out);
    sf::archive::ZipWriter zip(**out, 315532800);
    for (const auto& [name, data] : members) REQUIRE(zip.add(name, data));
    REQUIRE(zip.finish());
    REQUIRE((*out)->commit());
    return sf::test::slurp(tmp.path() / "w.whl");
}

struct Run {
    int rc = -1;
    std::string err, out;
};

Run check(const stdfs::path& dir, const std::string& bytes) {
    stdfs::create_directories(dir);
    REQUIRE(sf::fs::write_file_atomic(dir / kWheel, bytes));
    sf::process::Command c{{sf::test::binary().string(), "check", kWheel}, dir, sf::process::current_env(), {}, {}, {}};
    auto r = sf::process::capture(c);
    REQUIRE(r);
    return {r->exit_code, r->err, r->out};
}

std::vector<std::string> nonempty_lines(const std::string& s) {
    std::vector<std::string> out;
    for (const auto& l : sf::str::split_lines(s))
        if (!sf::str::trim(l).empty()) out.push_back(l);
    return out;
}

// Refused: exit 1 or 2 (no signal), one line on stderr naming the wheel and `what`.
void require_refused(const Run& r, const std::string& what) {
    INFO(r.err);
    INFO(r.out);
    CHECK((r.rc == 1 || r.rc == 2));
    auto lines = nonempty_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(sf::str::starts_with(lines[0], "splitforge: error: " + kWheel + ": "));
    CHECK(lines[0].find(what) != std::string::npos);
}

void require_passes(const Run& r) {
    INFO(r.err);
    INFO(r.out);
    CHECK(r.rc == 0);
}

}  // namespace

TEST_CASE("security: ELF headers that lie about offsets and sizes are one-line errors, never an abort",
          "[security][check][elf]") {
    sf::fs::TempDir tmp("sf-sec-elf");
    const std::string good = elf();
    const std::uint64_t size = good.size();
    struct Case {
        std::string what;
        std::function<void(std::string&)> lie;
    };
    const std::vector<Case> cases = {
        {"a .dynsym of 0x7fffffffffff bytes", [](std::string& e) { set_section(e, kDynsym, 32, 0x7fffffffffffULL); }},
        {"a section offset past the end of the file", [&](std::string& e) { set_section(e, kSymtab, 24, size + 100); }},
        {"a string table of 2^62 bytes", [](std::string& e) { set_section(e, kDynstr, 32, 1ULL << 62); }},
        {"dynamic entries past the end of the file", [&](std::string& e) { set_section(e, kDynamic, 32, size); }},
        {"a note section larger than the file", [](std::string& e) { set_section(e, kNote, 32, 0xffffffff0ULL); }},
        {"section headers past the end of the file", [](std::string& e) { put(e, 60, 0xffff, 2); }},
        {"a section offset that wraps around", [](std::string& e) { set_section(e, kNote, 24, ~0ULL - 8); }},
    };
    SECTION("the benign twin passes check and every reader") {
        require_passes(check(tmp.path() / "good", wheel_bytes(good)));
        const stdfs::path f = tmp.path() / "libgood.so";
        REQUIRE(sf::fs::write_file_atomic(f, good));
        auto info = sf::package::read_elf(f);
        REQUIRE(info);
        CHECK(info->needed == std::vector<std::string>{"libc.so.6"});
        CHECK(info->soname == "libtorch.so");
        auto syms = sf::package::read_elf_symbols(f);
        REQUIRE(syms);
        REQUIRE(syms->symbols.size() == 1);
        CHECK(syms->symbols[0].name == "torch_fn");
        auto id = sf::package::find_build_id(f);
        REQUIRE(id);
        CHECK(*id);
        CHECK(sf::package::rehash_build_id(f));
        CHECK(sf::package::normalize_nvcc_temp_names(f));
    }
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.what) {
            std::string bad = good;
            c.lie(bad);
            require_refused(check(tmp.path() / "bad", wheel_bytes(bad)), kLib + ": malformed ELF file: ");
            // Each reader alone: an error naming the file, on one line.
            const stdfs::path f = tmp.path() / "libbad.so";
            REQUIRE(sf::fs::write_file_atomic(f, bad));
            auto one_line = [&](const sf::Error& e) {
                INFO(e.str());
                CHECK(e.str().find('\n') == std::string::npos);
                CHECK(e.str().find(f.string()) != std::string::npos);
            };
            auto a = sf::package::read_elf(f);
            REQUIRE_FALSE(a);
            one_line(a.error());
            auto b = sf::package::read_elf_symbols(f);
            REQUIRE_FALSE(b);
            one_line(b.error());
            auto d = sf::package::find_build_id(f);
            REQUIRE_FALSE(d);
            one_line(d.error());
            auto n = sf::package::normalize_nvcc_temp_names(f);
            REQUIRE_FALSE(n);
            one_line(n.error());
        }
    }
}

namespace {

// Where member `name`'s local header ("PK\3\4", name at +30) or central
// directory entry ("PK\1\2", name at +46) begins.
std::size_t header_of(const std::string& zip, const std::string& name, bool central) {
    const std::string sig = central ? std::string("PK\x01\x02", 4) : std::string("PK\x03\x04", 4);
    const std::size_t name_at = central ? 46 : 30;
    for (auto at = zip.find(sig); at != std::string::npos; at = zip.find(sig, at + 1))
        if (zip.compare(at + name_at, name.size(), name) == 0) return at;
    FAIL("no header of " << name);
    return 0;
}

// The end record becomes a zip64 end record (entry count `entries`), its
// locator and an end record saying "see zip64".
void to_zip64(std::string& zip, std::uint64_t entries) {
    const std::size_t eocd = zip.size() - 22;
    const std::string rec = zip.substr(eocd);
    const std::uint64_t cd_size = get(rec, 12, 4), cd_offset = get(rec, 16, 4);
    std::string z(56, '\0');
    std::memcpy(z.data(), "PK\x06\x06", 4);
    put(z, 4, 44, 8), put(z, 12, 45, 2), put(z, 14, 45, 2);
    put(z, 24, entries, 8), put(z, 32, entries, 8), put(z, 40, cd_size, 8), put(z, 48, cd_offset, 8);
    std::string loc(20, '\0');
    std::memcpy(loc.data(), "PK\x06\x07", 4);
    put(loc, 8, eocd, 8), put(loc, 16, 1, 4);
    std::string end = rec;
    put(end, 8, 0xffff, 2), put(end, 10, 0xffff, 2), put(end, 12, 0xffffffff, 4), put(end, 16, 0xffffffff, 4);
    zip = zip.substr(0, eocd) + z + loc + end;
}

}  // namespace

TEST_CASE("security: a zip whose local headers, central directory or CRC-32 disagree is refused by check",
          "[security][check][zip]") {
    sf::fs::TempDir tmp("sf-sec-zip");
    const std::string good = wheel_bytes(elf());
    const std::string py = "torch/__init__.py";
    const std::size_t local = header_of(good, py, false), central = header_of(good, py, true);
    const std::size_t data = local + 30 + py.size(), eocd = good.size() - 22;
    const std::uint64_t entries = get(good, eocd + 10, 2);
    struct Case {
        std::string what;
        std::function<void(std::string&)> lie;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"a data byte altered (CRC-32 no longer matches)", [&](std::string& z) { z[data] = 'X'; },
         "member '" + py + "': bad CRC-32"},
        {"a wrong CRC-32 in both headers",
         [&](std::string& z) {
             put(z, local + 14, get(z, local + 14, 4) ^ 1, 4);
             put(z, central + 16, get(z, central + 16, 4) ^ 1, 4);
         },
         "member '" + py + "': bad CRC-32"},
        {"a local CRC-32 other than the central one",
         [&](std::string& z) { put(z, local + 14, get(z, local + 14, 4) ^ 1, 4); }, "its local header says CRC-32"},
        {"local sizes larger than the central ones",
         [&](std::string& z) { put(z, local + 18, 11, 4), put(z, local + 22, 11, 4); },
         "its local header says compressed size 11, the central directory 10"},
        {"local sizes smaller than the central ones",
         [&](std::string& z) { put(z, local + 18, 9, 4), put(z, local + 22, 9, 4); },
         "its local header says compressed size 9, the central directory 10"},
        {"central sizes larger than the local ones",
         [&](std::string& z) { put(z, central + 20, 11, 4), put(z, central + 24, 11, 4); },
         "its local header says compressed size 10, the central directory 11"},
        {"a local name other than the central one", [&](std::string& z) { z[local + 30] = 'T'; },
         "member '" + py + "': its local header names 'Torch/__init__.py'"},
        {"an end record claiming 0xFFFF entries",
         [&](std::string& z) { put(z, eocd + 8, 0xffff, 2), put(z, eocd + 10, 0xffff, 2); },
         "the end record claims 65535 entries"},
        {"an end record claiming one entry fewer",
         [&](std::string& z) { put(z, eocd + 8, entries - 1, 2), put(z, eocd + 10, entries - 1, 2); },
         "holds more than the " + std::to_string(entries - 1) + " entries"},
        {"a zip64 end record claiming 2^32 entries", [&](std::string& z) { to_zip64(z, 1ULL << 32); },
         "the end record claims 4294967296 entries"},
        {"a central directory offset that lies", [&](std::string& z) { put(z, eocd + 16, get(z, eocd + 16, 4) - 1, 4); },
         "the central directory does not end where the end record begins"},
    };
    SECTION("the benign twins pass check: as written, and with a right zip64 end record") {
        require_passes(check(tmp.path() / "good", good));
        std::string z64 = good;
        to_zip64(z64, entries);
        require_passes(check(tmp.path() / "good64", z64));
    }
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.what) {
            std::string bad = good;
            c.lie(bad);
            REQUIRE(bad != good);
            require_refused(check(tmp.path() / "bad", bad), c.message);
            CHECK_FALSE(stdfs::exists(tmp.path() / "bad" / "torch"));
        }
    }
}
