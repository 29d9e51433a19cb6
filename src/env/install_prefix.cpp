// Prefix placeholder replacement, as conda's core/portability.py does it,
// in one pass: a hostile package repeating a placeholder 320k times must cost
// what its size costs, not its size times its hits.
#include <cstring>

#include "env/install.hpp"
#include "util/strings.hpp"

namespace sf::env {
namespace {

// Occurrences of `needle` in `hay`, left to right, not overlapping.
std::size_t count_hits(std::string_view hay, std::string_view needle) {
    std::size_t n = 0;
    for (size_t p = hay.find(needle); p != std::string_view::npos; p = hay.find(needle, p + needle.size())) ++n;
    return n;
}

// Appends `s` with every `from` replaced by `to`; returns how many there were.
std::size_t append_replaced(std::string& out, std::string_view s, std::string_view from, std::string_view to) {
    std::size_t n = 0, pos = 0;
    for (size_t hit = s.find(from); hit != std::string_view::npos; hit = s.find(from, pos), ++n) {
        out.append(s, pos, hit - pos);
        out.append(to);
        pos = hit + from.size();
    }
    out.append(s, pos);
    return n;
}

// Linux limits shebang lines to 127 bytes; conda rewrites longer ones to go
// through /usr/bin/env.
std::string fix_long_shebang(std::string data) {
    if (!str::starts_with(data, "#!")) return data;
    size_t eol = data.find('\n');
    std::string line = data.substr(0, eol);
    if (line.size() <= 127) return data;
    size_t exe_end = 2;
    while (exe_end < line.size() && line[exe_end] != ' ' && line[exe_end] != '\r') {
        if (line[exe_end] == '\\' && exe_end + 1 < line.size() && line[exe_end + 1] == ' ') ++exe_end;
        ++exe_end;
    }
    std::string exe = line.substr(2, exe_end - 2);
    std::string program = exe.substr(exe.rfind('/') == std::string::npos ? 0 : exe.rfind('/') + 1);
    std::string fixed = "#!/usr/bin/env " + program + line.substr(exe_end);
    return fixed + (eol == std::string::npos ? std::string{} : data.substr(eol));
}

}  // namespace

Result<void> check_placeholder(const std::string& placeholder) {
    if (placeholder.size() < kMinPlaceholder)
        return fail("prefix placeholder '" + placeholder + "' is too short (" + std::to_string(placeholder.size()) +
                        " characters, at least " + std::to_string(kMinPlaceholder) +
                        "); a placeholder is the prefix the package was built in",
                    "the package is damaged or hostile; do not install it");
    if (placeholder.find('\0') != std::string::npos)
        return fail("prefix placeholder contains a NUL byte", "the package is damaged or hostile; do not install it");
    return {};
}

Result<std::string> replace_prefix_text(const std::string& data, const std::string& placeholder,
                                        const std::string& prefix, std::uint64_t max_size) {
    if (placeholder.empty()) return fix_long_shebang(data);
    std::size_t hits = count_hits(data, placeholder);
    std::uint64_t size = data.size();
    if (prefix.size() > placeholder.size()) size += std::uint64_t{hits} * (prefix.size() - placeholder.size());
    if (size > max_size)
        return fail("replacing the prefix placeholder " + std::to_string(hits) + " times would make " +
                        std::to_string(size) + " bytes, over the limit of " + std::to_string(max_size),
                    "the package is damaged or hostile; do not install it");
    std::string out;
    out.reserve(size);
    append_replaced(out, data, placeholder, prefix);
    return fix_long_shebang(std::move(out));
}

Result<std::string> replace_prefix_binary(const std::string& data, const std::string& placeholder,
                                          const std::string& prefix) {
    if (placeholder.empty()) return data;
    if (prefix.size() > placeholder.size())
        return fail("the prefix '" + prefix + "' (" + std::to_string(prefix.size()) +
                    " characters) is longer than the binary placeholder (" + std::to_string(placeholder.size()) +
                    " characters)",
                    "install into a shorter prefix");
    const std::string_view all(data);
    std::string out;
    out.reserve(data.size());
    size_t pos = 0;
    while (true) {
        size_t hit = all.find(placeholder, pos);
        if (hit == std::string::npos) break;
        size_t nul = all.find('\0', hit + placeholder.size());
        if (nul == std::string::npos) break;  // not inside a C string: left alone, as conda does
        out.append(all, pos, hit - pos);
        std::size_t n = append_replaced(out, all.substr(hit, nul - hit), placeholder, prefix);
        out.append(n * (placeholder.size() - prefix.size()), '\0');
        pos = nul;  // the terminating NUL is copied with the next chunk
    }
    out.append(all, pos);
    return out;
}

}  // namespace sf::env
