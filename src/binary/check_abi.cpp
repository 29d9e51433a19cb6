#include "binary/check_abi.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>

#include "util/strings.hpp"

namespace sf::binary {

namespace {

std::string demangle(std::string_view mangled) {
    std::string m(mangled);
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(m.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && d ? std::string(d.get()) : std::string();
}

}  // namespace

std::string old_abi_symbol(std::string_view mangled) {
    if (!str::starts_with(mangled, "_Z")) return {};
    std::string d = demangle(mangled);
    if (d.empty()) return {};
    static const char* const namespaces[] = {"c10::", "at::", "torch::"};
    bool in_ns = false;
    for (const char* ns : namespaces) in_ns = in_ns || str::starts_with(d, ns);
    if (!in_ns) return {};
    // Old ABI: `Ss` demangles as std::string, `Sb` as std::basic_string<...>;
    // the new types are std::__cxx11::basic_string / std::__cxx11::list.
    static const char* const old_types[] = {"std::string", "std::basic_string<", "std::list<"};
    for (std::string_view t : old_types)
        for (auto at = d.find(t); at != std::string::npos; at = d.find(t, at + 1)) {
            char next = at + t.size() < d.size() ? d[at + t.size()] : ' ';
            if (t.back() == '<' || !(std::isalnum(static_cast<unsigned char>(next)) || next == '_')) return d;
        }
    return {};
}

std::vector<std::string> old_abi_symbols(const std::vector<std::string>& mangled) {
    std::vector<std::string> out;
    for (const auto& m : mangled)
        if (auto d = old_abi_symbol(m); !d.empty()) out.push_back(std::move(d));
    return out;
}

}  // namespace sf::binary
