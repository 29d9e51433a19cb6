// Prefix placeholder replacement, as conda's core/portability.py does it.
#include "env/install.hpp"
#include "util/strings.hpp"

namespace sf::env {

std::string replace_prefix_text(std::string data, const std::string& placeholder, const std::string& prefix) {
    if (!placeholder.empty()) data = str::replace_all(std::move(data), placeholder, prefix);
    // Linux limits shebang lines to 127 bytes; conda rewrites longer ones to
    // go through /usr/bin/env.
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

Result<std::string> replace_prefix_binary(const std::string& data, const std::string& placeholder,
                                          const std::string& prefix) {
    if (placeholder.empty()) return data;
    if (prefix.size() > placeholder.size())
        return fail("the prefix '" + prefix + "' (" + std::to_string(prefix.size()) +
                    " characters) is longer than the binary placeholder (" + std::to_string(placeholder.size()) +
                    " characters)",
                    "install into a shorter prefix");
    std::string out;
    out.reserve(data.size());
    size_t pos = 0;
    while (true) {
        size_t hit = data.find(placeholder, pos);
        if (hit == std::string::npos) break;
        size_t nul = data.find('\0', hit + placeholder.size());
        if (nul == std::string::npos) break;  // not inside a C string: left alone, as conda does
        out.append(data, pos, hit - pos);
        std::string cstr = data.substr(hit, nul - hit);
        size_t n = 0;
        for (size_t p = cstr.find(placeholder); p != std::string::npos; p = cstr.find(placeholder, p + placeholder.size()))
            ++n;
        out += str::replace_all(cstr, placeholder, prefix);
        out.append(n * (placeholder.size() - prefix.size()), '\0');
        pos = nul;  // the terminating NUL is copied with the next chunk
    }
    out.append(data, pos, std::string::npos);
    return out;
}

}  // namespace sf::env
