#include "binary/manylinux.hpp"

#include <algorithm>
#include <array>

#include "util/strings.hpp"

namespace sf::binary {

namespace {

// ---- The table (auditwheel 6.8.1's manylinux-policy.json, as facts) ----
//
// Each family's versions, grouped by the oldest policy that admits them: a
// policy admits every version its older policies admit (auditwheel refuses
// a policy file where that does not hold). `since` is the policy's glibc
// minor (5: manylinux_2_5).
struct FirstAdmitted {
    std::string_view family;
    int since;
    std::string_view versions;  // space-separated
};

constexpr FirstAdmitted kX86_64[] = {
    {"GLIBC", 5, "2.2.5 2.2.6 2.3 2.3.2 2.3.3 2.3.4 2.4 2.5"},
    {"GLIBC", 12, "2.6 2.7 2.8 2.9 2.10 2.11 2.12"},
    {"GLIBC", 17, "2.13 2.14 2.15 2.16 2.17"},
    {"GLIBC", 24, "2.18 2.22 2.23 2.24"},  // 2.19-2.21 added no symbol versions
    {"GLIBC", 26, "2.25 2.26"},
    {"GLIBC", 27, "2.27"},
    {"GLIBC", 28, "2.28"},
    {"GLIBC", 31, "2.29 2.30 2.31"},
    {"GLIBC", 34, "2.32 2.33 2.34"},
    {"GLIBC", 35, "2.35"},
    {"GLIBC", 36, "2.36 ABI_DT_RELR"},
    {"GLIBC", 38, "2.38"},  // 2.37 added none
    {"GLIBC", 39, "2.39"},
    {"GLIBC", 40, "2.40"},
    {"GLIBC", 41, "2.41"},
    {"GLIBCXX", 5, "3.4 3.4.1 3.4.2 3.4.3 3.4.4 3.4.5 3.4.6 3.4.7 3.4.8"},
    {"GLIBCXX", 12, "3.4.9 3.4.10 3.4.11 3.4.12 3.4.13"},
    {"GLIBCXX", 17, "3.4.14 3.4.15 3.4.16 3.4.17 3.4.18 3.4.19"},
    {"GLIBCXX", 24, "3.4.20 3.4.21 3.4.22"},
    {"GLIBCXX", 27, "3.4.23 3.4.24"},
    {"GLIBCXX", 31, "3.4.25 3.4.26 3.4.27 3.4.28"},
    {"GLIBCXX", 34, "3.4.29"},
    {"GLIBCXX", 35, "3.4.30"},
    {"GLIBCXX", 39, "3.4.31 3.4.32 3.4.33"},
    {"CXXABI", 5, "1.3 1.3.1"},
    {"CXXABI", 12, "1.3.2 1.3.3"},
    {"CXXABI", 17, "1.3.4 1.3.5 1.3.6 1.3.7 TM_1"},
    {"CXXABI", 24, "1.3.8 1.3.9 1.3.10 FLOAT128"},
    {"CXXABI", 27, "1.3.11"},
    {"CXXABI", 31, "1.3.12"},
    {"CXXABI", 34, "1.3.13"},
    {"CXXABI", 39, "1.3.14 1.3.15"},
    {"GCC", 5, "3.0 3.3 3.3.1 3.4 3.4.2 3.4.4 4.0.0 4.2.0"},
    {"GCC", 12, "4.3.0"},
    {"GCC", 17, "4.7.0 4.8.0"},
    {"GCC", 27, "7.0.0"},
    {"GCC", 35, "12.0.0"},
    {"GCC", 39, "13.0.0 14.0.0"},
    {"LIBATOMIC", 24, "1.0 1.1 1.2"},
    {"ZLIB", 12, "1.2.0 1.2.0.2 1.2.0.8 1.2.2 1.2.2.3 1.2.2.4"},
    {"ZLIB", 17, "1.2.3.3 1.2.3.4 1.2.3.5 1.2.5.1 1.2.5.2"},
    {"ZLIB", 27, "1.2.7.1 1.2.9"},
    {"ZLIB", 37, "1.2.12"},
};

// aarch64 starts at manylinux_2_17 (manylinux2014), glibc 2.17's port.
constexpr FirstAdmitted kAarch64[] = {
    {"GLIBC", 17, "2.0 2.17 2.18"},
    {"GLIBC", 24, "2.22 2.23 2.24"},
    {"GLIBC", 26, "2.25 2.26"},
    {"GLIBC", 27, "2.27"},
    {"GLIBC", 28, "2.28"},
    {"GLIBC", 31, "2.29 2.30 2.31"},
    {"GLIBC", 34, "2.32 2.33 2.34"},
    {"GLIBC", 35, "2.35"},
    {"GLIBC", 36, "2.36 ABI_DT_RELR"},
    {"GLIBC", 38, "2.38"},
    {"GLIBC", 39, "2.39"},
    {"GLIBC", 40, "2.40"},
    {"GLIBC", 41, "2.41"},
    {"GLIBCXX", 17,
     "3.4 3.4.1 3.4.2 3.4.3 3.4.4 3.4.5 3.4.6 3.4.7 3.4.8 3.4.9 3.4.10 3.4.11 3.4.12 3.4.13 3.4.14 "
     "3.4.15 3.4.16 3.4.17 3.4.18 3.4.19"},
    {"GLIBCXX", 24, "3.4.20 3.4.21 3.4.22"},
    {"GLIBCXX", 26, "3.4.23 3.4.24"},
    {"GLIBCXX", 31, "3.4.25 3.4.26 3.4.27 3.4.28"},
    {"GLIBCXX", 34, "3.4.29"},
    {"GLIBCXX", 35, "3.4.30"},
    {"GLIBCXX", 39, "3.4.31 3.4.32 3.4.33"},
    {"CXXABI", 17, "1.3 1.3.1 1.3.2 1.3.3 1.3.4 1.3.5 1.3.6 1.3.7 TM_1"},
    {"CXXABI", 24, "1.3.8 1.3.9 1.3.10"},
    {"CXXABI", 26, "1.3.11"},
    {"CXXABI", 31, "1.3.12"},
    {"CXXABI", 34, "1.3.13"},
    {"CXXABI", 39, "1.3.14 1.3.15"},
    {"GCC", 17, "3.0 3.3 3.3.1 3.4 3.4.2 3.4.4 4.0.0 4.2.0 4.3.0 4.5.0 4.7.0"},
    {"GCC", 26, "7.0.0"},
    {"GCC", 34, "11.0"},
    {"GCC", 39, "13.0.0 14.0 14.0.0"},
    {"LIBATOMIC", 17, "1.0"},
    {"LIBATOMIC", 24, "1.1 1.2"},
    {"ZLIB", 17, "1.2.0 1.2.0.2 1.2.0.8 1.2.2 1.2.2.3 1.2.2.4 1.2.3.3 1.2.3.4 1.2.3.5 1.2.5.1 1.2.5.2"},
    {"ZLIB", 27, "1.2.7.1 1.2.9"},
    {"ZLIB", 37, "1.2.12"},
};

// The families every policy names: a version of another family is no
// policy's business.
constexpr std::string_view kFamilies[] = {"GLIBC", "GLIBCXX", "CXXABI", "GCC", "LIBATOMIC", "ZLIB"};

// The policies, oldest first: glibc minor and legacy alias.
struct PolicyRow {
    int minor;
    std::string_view alias;
};
constexpr PolicyRow kPolicies[] = {
    {5, "manylinux1"}, {12, "manylinux2010"}, {17, "manylinux2014"}, {24, ""}, {26, ""}, {27, ""},
    {28, ""}, {31, ""}, {34, ""}, {35, ""}, {36, ""}, {37, ""}, {38, ""}, {39, ""}, {40, ""}, {41, ""},
};

// The allow-list: libraries every manylinux system has, with the policy
// that first allows each (the same for every architecture).
struct AllowedLib {
    std::string_view soname;
    int since;
};
constexpr AllowedLib kAllowed[] = {
    {"libatomic.so.1", 5}, {"libgcc_s.so.1", 5},   {"libstdc++.so.6", 5},      {"libm.so.6", 5},
    {"libanl.so.1", 5},    {"libdl.so.2", 5},      {"librt.so.1", 5},          {"libc.so.6", 5},
    {"libnsl.so.1", 5},    {"libutil.so.1", 5},    {"libpthread.so.0", 5},     {"libX11.so.6", 5},
    {"libXext.so.6", 5},   {"libXrender.so.1", 5}, {"libICE.so.6", 5},         {"libSM.so.6", 5},
    {"libGL.so.1", 5},     {"libgobject-2.0.so.0", 5}, {"libgthread-2.0.so.0", 5}, {"libglib-2.0.so.0", 5},
    {"libresolv.so.2", 5}, {"libz.so.1", 5},       {"libexpat.so.1", 12},      {"libmvec.so.1", 24},
};

// Symbols of allowed libraries a policy forbids, up to the newest policy
// that forbids them: glibc internals older systems lack, and zlib's
// non-API symbols (distributions build zlib differently).
struct Blacklist {
    std::string_view soname;
    int until;
    std::string_view symbols;
};
constexpr Blacklist kBlacklist[] = {
    {"libc.so.6", 17,
     "__cxa_thread_atexit_impl __issignaling __issignalingf __issignalingl pthread_getattr_default_np "
     "pthread_setattr_default_np"},
    {"libm.so.6", 17, "__issignaling __issignalingf __issignalingl"},
    {"libpthread.so.0", 17, "pthread_getattr_default_np pthread_setattr_default_np"},
    {"libz.so.1", 99,
     "_dist_code _length_code _tr_align _tr_flush_block _tr_init _tr_stored_block _tr_tally adler32_default "
     "bi_windup crc32_acle crc32_combine_gen crc32_combine_gen64 crc32_combine_op crc32_le_vgfm_16 crc32_neon "
     "crc32_vpmsum crc32_z_default crc_fold_512to32 crc_fold_copy crc_fold_init deflate_copyright "
     "deflate_medium fill_window flush_pending gzflags inflate_copyright inflate_fast inflate_table "
     "longest_match slide_hash_sse static_ltree uncompress2 x86_check_features x86_cpu_has_pclmul "
     "x86_cpu_has_sse2 x86_cpu_has_sse42 sse2_slide_hash z_errmsg z_vstring zcalloc zcfree"},
};

// ---- Lookups ----

bool has_word(std::string_view list, std::string_view word) {
    for (std::size_t at = 0; at <= list.size();) {
        std::size_t end = list.find(' ', at);
        if (end == std::string_view::npos) end = list.size();
        if (list.substr(at, end - at) == word) return true;
        at = end + 1;
    }
    return false;
}

std::pair<const FirstAdmitted*, const FirstAdmitted*> table_of(std::string_view arch) {
    if (arch == "x86_64") return {std::begin(kX86_64), std::end(kX86_64)};
    if (arch == "aarch64") return {std::begin(kAarch64), std::end(kAarch64)};
    return {nullptr, nullptr};
}

int first_minor(std::string_view arch) { return arch == "aarch64" ? 17 : 5; }

bool blacklisted_in(int minor, std::string_view soname, std::string_view symbol) {
    for (const auto& b : kBlacklist)
        if (b.soname == soname && minor <= b.until && has_word(b.symbols, symbol)) return true;
    return false;
}

// The dynamic loader's own versions are never a policy's concern.
bool is_loader(std::string_view file) {
    return str::starts_with(file, "ld-linux") || file == "ld64.so.2" || file == "ld64.so.1";
}

}  // namespace

std::string ManylinuxPolicy::name() const { return "manylinux_2_" + std::to_string(glibc_minor); }

std::string ManylinuxPolicy::tag(std::string_view arch) const { return name() + "_" + std::string(arch); }

std::vector<std::string> ManylinuxPolicy::tags(std::string_view arch) const {
    std::vector<std::string> out{tag(arch)};
    if (!alias.empty()) out.push_back(std::string(alias) + "_" + std::string(arch));
    return out;
}

std::vector<ManylinuxPolicy> manylinux_policies(std::string_view arch) {
    std::vector<ManylinuxPolicy> out;
    if (!table_of(arch).first) return out;
    for (const auto& p : kPolicies)
        if (p.minor >= first_minor(arch)) out.push_back(ManylinuxPolicy{p.minor, p.alias});
    return out;
}

bool allowed(const ManylinuxPolicy& policy, std::string_view soname) {
    if (is_loader(soname)) return true;  // as auditwheel: the dynamic loader is never grafted
    return std::any_of(std::begin(kAllowed), std::end(kAllowed),
                       [&](const AllowedLib& a) { return a.soname == soname && a.since <= policy.glibc_minor; });
}

bool admits_version(const ManylinuxPolicy& policy, std::string_view arch, std::string_view version) {
    const std::size_t us = version.find('_');
    const std::string_view family = version.substr(0, us);
    if (std::find(std::begin(kFamilies), std::end(kFamilies), family) == std::end(kFamilies)) return true;
    if (us == std::string_view::npos) return false;
    const std::string_view v = version.substr(us + 1);
    auto [begin, end] = table_of(arch);
    for (auto* row = begin; row != end; ++row)
        if (row->family == family && row->since <= policy.glibc_minor && has_word(row->versions, v)) return true;
    return false;
}

std::string x86_isa_level(std::uint32_t isa_needed) {
    const std::uint32_t bits = isa_needed & ~1u;  // bit 0: the baseline
    if (bits & 8) return "x86_64_v4";
    if (bits & 4) return "x86_64_v3";
    if (bits & 2) return "x86_64_v2";
    return bits ? "unknown" : "";
}

int python_extension_major(const package::ElfSymbols& elf, std::string_view file) {
    std::string_view name = file.substr(file.rfind('/') == std::string_view::npos ? 0 : file.rfind('/') + 1);
    const std::string mod(name.substr(0, name.find('.')));
    for (const auto& s : elf.symbols) {
        if (!s.defined || s.type != package::SymbolType::func) continue;
        if (s.name == "PyInit_" + mod) return 3;
        if (s.name == "init" + mod || s.name == "_cffi_pypyinit_" + mod) return 2;
    }
    return 0;
}

namespace {

// An ISA level above the baseline (x86_64 only: auditwheel reads the note
// there only).
void add_isa(ManylinuxRequirements& req, const package::ElfSymbols& elf, std::string_view arch,
             std::string_view file) {
    const std::string level = arch == "x86_64" ? x86_isa_level(elf.x86_isa_needed) : "";
    if (level == "unknown")
        req.linux_only.push_back({std::string(file), "needs an unknown x86_64 ISA level (GNU_PROPERTY_X86_ISA_1_NEEDED " +
                                  std::to_string(elf.x86_isa_needed) + ")", "rebuild for the x86_64 baseline"});
    else if (!level.empty()) {
        const std::string gnu = "x86-64-" + level.substr(7);  // as gcc and ld spell it
        req.linux_only.push_back(
            {std::string(file),
             "needs the " + level + " instruction set (GNU_PROPERTY_X86_ISA_1_NEEDED), above the x86_64 baseline "
             "every manylinux tag promises",
             "build without -march=" + gnu + " and -Wl,-z," + gnu +
                 ", or pick the level at run time; auditwheel refuses it too ('depends on unsupported ISA "
                 "extensions')"});
    }
}

// In a Python extension module: UCS2 symbols (Python 2 modules only) and
// PyFPE ones, each an undefined reference of the type auditwheel asks.
void add_python_abi(ManylinuxRequirements& req, const package::ElfSymbols& elf, std::string_view file) {
    const int py = python_extension_major(elf, file);
    if (!py) return;
    for (const auto& s : elf.symbols) {
        if (s.defined) continue;
        if (py == 2 && s.type == package::SymbolType::func && s.name.find("PyUnicodeUCS2_") != std::string::npos) {
            req.linux_only.push_back({std::string(file),
                                      "is built against a narrow-unicode (UCS2) Python: it uses " + s.name,
                                      "build it against a wide-unicode (UCS4) Python"});
            break;
        }
    }
    for (const auto& s : elf.symbols) {
        if (s.defined || (s.type != package::SymbolType::func && s.type != package::SymbolType::notype)) continue;
        if (s.name == "PyFPE_jbuf" || s.name == "PyFPE_dummy" || s.name == "PyFPE_counter") {
            req.linux_only.push_back({std::string(file),
                                      "uses " + s.name + ", which only a Python built --with-fpectl has (PEP 513)",
                                      "build it against a Python without fpectl"});
            break;
        }
    }
}

}  // namespace

Result<void> add_requirements(ManylinuxRequirements& req, const package::ElfSymbols& elf, std::string_view file) {
    const std::string_view arch = package::machine_arch(elf.machine, elf.little_endian);
    if (!table_of(arch).first)
        return fail(SourceLoc{std::string(file)},
                    "no manylinux policy for this ELF file's architecture (e_machine " +
                        std::to_string(elf.machine) + ")",
                    "splitforge knows the x86_64 and aarch64 policies");
    if (req.arch.empty()) req.arch = arch;
    if (req.arch != arch)
        return fail(SourceLoc{std::string(file)},
                    "ELF file for " + std::string(arch) + " among files for " + req.arch);
    for (const auto& need : elf.needs) {
        if (is_loader(need.file)) continue;
        req.versions.insert(need.versions.begin(), need.versions.end());
    }
    std::set<std::string_view> needed;
    for (const auto& need : elf.needs) needed.insert(need.file);
    for (const auto& b : kBlacklist) {
        // Like auditwheel: any undefined symbol of a file that needs the library.
        if (!needed.count(b.soname)) continue;
        for (const auto& s : elf.symbols)
            if (!s.defined && has_word(b.symbols, s.name)) req.blacklisted.emplace(b.soname, s.name);
    }
    add_isa(req, elf, arch, file);
    add_python_abi(req, elf, file);
    return {};
}

std::vector<std::string> refusals(const ManylinuxPolicy& policy, const ManylinuxRequirements& req) {
    std::vector<std::string> why;
    for (const auto& v : req.versions)
        if (!admits_version(policy, req.arch, v)) why.push_back("symbol version " + v);
    for (const auto& lib : req.system_libs)
        if (!allowed(policy, lib)) why.push_back("library " + lib + " (not on the allow-list)");
    for (const auto& [lib, sym] : req.blacklisted)
        if (blacklisted_in(policy.glibc_minor, lib, sym)) why.push_back("symbol " + sym + " of " + lib);
    for (const auto& l : req.linux_only) why.push_back(l.file + " " + l.why);
    return why;
}

Result<ManylinuxPolicy> oldest_policy(const ManylinuxRequirements& req) {
    const auto policies = manylinux_policies(req.arch);
    if (policies.empty())
        return fail("no manylinux policy for architecture '" + req.arch + "'",
                    "splitforge knows the x86_64 and aarch64 policies");
    if (!req.linux_only.empty()) {
        const auto& l = req.linux_only.front();
        return fail(SourceLoc{l.file}, l.why + ": no manylinux policy admits it", l.hint);
    }
    for (const auto& p : policies)
        if (refusals(p, req).empty()) return p;
    const auto why = refusals(policies.back(), req);
    return fail("no manylinux policy admits " + why.front() + " (the newest known is " +
                    policies.back().tag(req.arch) + ")",
                "build against an older glibc/libstdc++, or bundle the library");
}

}  // namespace sf::binary
