#pragma once
// The manylinux policies (PEP 600 `manylinux_2_X` tags, with the legacy
// aliases of PEP 513/571/599) as auditwheel 6.8.1 judges a wheel by them:
// per policy and architecture, the symbol versions it admits (GLIBC_,
// GLIBCXX_, CXXABI_, GCC_, LIBATOMIC_, ZLIB_), the libraries a wheel may
// leave to the system (the allow-list), and the symbols of those libraries
// it may not use. x86_64 and aarch64 only.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "package/elf_symbols.hpp"

namespace sf::binary {

struct ManylinuxPolicy {
    int glibc_minor = 0;     // manylinux_2_<glibc_minor>
    std::string_view alias;  // "manylinux2014"; empty: none
    std::string name() const;                            // "manylinux_2_17"
    std::string tag(std::string_view arch) const;        // "manylinux_2_17_x86_64"
    // The tags a wheel carries, as `auditwheel repair` writes them: the PEP
    // 600 one, then the alias ("manylinux_2_17_x86_64",
    // "manylinux2014_x86_64").
    std::vector<std::string> tags(std::string_view arch) const;
};

// The policies of an architecture, oldest first; empty: an architecture
// the table does not hold.
std::vector<ManylinuxPolicy> manylinux_policies(std::string_view arch);

// Whether `policy` lets a wheel use `soname` from the system: its allow-list,
// and the dynamic loader (ld-linux*.so.*, ld64.so.1/2), which auditwheel
// never counts as an external library.
bool allowed(const ManylinuxPolicy& policy, std::string_view soname);

// Whether `policy` admits a required symbol version ("GLIBC_2.17") on
// `arch`. A version of a family the policies do not name ("OPENSSL_3.0")
// is admitted; one of a named family that the policy does not list
// ("GLIBC_PRIVATE", "GLIBCXX_3.4.34") is not.
bool admits_version(const ManylinuxPolicy& policy, std::string_view arch, std::string_view version);

// What makes a file fit no manylinux policy at all (auditwheel's machine,
// UCS2 and PyFPE policies fall to `linux`): an x86-64 ISA level above the
// baseline (x86_64_v2/v3/v4, from its GNU_PROPERTY_X86_ISA_1_NEEDED note),
// and, in a Python extension module, narrow-unicode (PyUnicodeUCS2_*, Python
// 2 modules only, as auditwheel looks) or fpectl (PyFPE_jbuf) symbols.
struct LinuxOnly {
    std::string file;  // as add_requirements was given it
    std::string why;   // "needs the x86_64_v3 instruction set (...)"
    std::string hint;
};

// What the ELF files of a wheel ask of the system, gathered as auditwheel
// gathers them.
struct ManylinuxRequirements {
    std::string arch;                  // from the first ELF file; the others must agree
    std::set<std::string> versions;    // every verneed version, the dynamic loader's left out
    std::set<std::string> system_libs; // needed sonames the wheel leaves to the system
    // (library, symbol): a file needs `library` and leaves `symbol` undefined,
    // and some policy forbids that symbol of that library.
    std::set<std::pair<std::string, std::string>> blacklisted;
    std::vector<LinuxOnly> linux_only;  // non-empty: no manylinux policy admits the files
};

// The x86-64 level an ISA_1_NEEDED note asks for, as auditwheel names it
// ("x86_64_v2".."x86_64_v4"; the highest bit set wins); empty: the baseline
// or no note; "unknown" for bits beyond v4.
std::string x86_isa_level(std::uint32_t isa_needed);

// Whether `file` (its name: `_C.cpython-312-x86_64-linux-gnu.so`) is a Python
// extension module, as auditwheel decides it: a defined function
// PyInit_<module> (3) or init<module> / _cffi_pypyinit_<module> (2), the
// module being the name up to its first dot. 0: not one.
int python_extension_major(const package::ElfSymbols& elf, std::string_view file);

// Adds one ELF file's needs; `file` names it in errors (an architecture
// other than the one gathered so far, or one the table does not hold) and
// in `linux_only`.
// `system_libs` is not touched: which needed libraries the wheel bundles is
// the caller's to say.
Result<void> add_requirements(ManylinuxRequirements& req, const package::ElfSymbols& elf, std::string_view file);

// The oldest policy that admits every required version, allows every
// system library and is not broken by a blacklisted symbol. None: an error
// naming what no policy admits (the first `linux_only` entry, at its file;
// else the newest policy's first refusal).
Result<ManylinuxPolicy> oldest_policy(const ManylinuxRequirements& req);

// Why `policy` refuses `req`: each required version, system library and
// blacklisted symbol it does not admit, in order; empty: it admits them.
std::vector<std::string> refusals(const ManylinuxPolicy& policy, const ManylinuxRequirements& req);

}  // namespace sf::binary
