#pragma once
// The C++11-ABI check of PyTorch's check_binary_symbols.py: among the
// symbols a library exports, none in the c10::, at:: or torch:: namespaces
// may use the pre-C++11 std::basic_string or std::list (the old ABI, built
// with -D_GLIBCXX_USE_CXX11_ABI=0). Names are demangled (libstdc++'s
// abi::__cxa_demangle, as `nm --demangle` does) and matched as that script
// matches them: the name starts with the namespace and mentions the type.
// In mangled form the old string is `Ss` (`NSs...`, `Sb` for basic_string
// with other arguments) and the old list `NSt4list`; the new ones sit in
// std::__cxx11 (`NSt7__cxx1112basic_stringI...`), which demangles as such
// and so never matches.
#include <string>
#include <string_view>
#include <vector>

namespace sf::binary {

// The demangled name when `mangled` is a pre-C++11-ABI symbol of c10::, at::
// or torch::; empty otherwise.
std::string old_abi_symbol(std::string_view mangled);

// The old-ABI symbols among `mangled`, demangled.
std::vector<std::string> old_abi_symbols(const std::vector<std::string>& mangled);

}  // namespace sf::binary
