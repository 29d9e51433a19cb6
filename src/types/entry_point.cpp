#include "types/entry_point.hpp"

namespace sf::types {
namespace {

bool word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// One run of characters `ok` accepts, starting at `i`; empty when none.
template <class Pred>
std::string_view run(std::string_view s, std::size_t& i, Pred ok) {
    std::size_t b = i;
    while (i < s.size() && ok(s[i])) ++i;
    return s.substr(b, i - b);
}

void skip_space(std::string_view s, std::size_t& i) {
    while (i < s.size() && space(s[i])) ++i;
}

// "#!/bin/sh" plus the line that is both shell and a Python string: what
// conda and rattler write when the interpreter's path cannot be a shebang.
std::string wrapped(const std::string& python) {
    return "#!/bin/sh\n'''exec' \"" + python + "\" \"$0\" \"$@\" #'''\n";
}

}  // namespace

Result<EntryPoint> parse_entry_point(std::string_view text) {
    // \s*([\w\-\.]+)\s*=\s*([\w.]+):([\w.]+)\s*$, matched by hand.
    auto bad = [&] {
        return fail("entry point '" + std::string(text) + "' is not 'name = module:function'",
                    "write it as in setup.py's console_scripts, e.g. 'mytool = mypkg.cli:main'");
    };
    std::size_t i = 0;
    EntryPoint ep;
    skip_space(text, i);
    ep.command = run(text, i, [](char c) { return word_char(c) || c == '-' || c == '.'; });
    skip_space(text, i);
    if (ep.command.empty() || i >= text.size() || text[i] != '=') return bad();
    ++i;
    skip_space(text, i);
    auto dotted = [](char c) { return word_char(c) || c == '.'; };
    ep.module = run(text, i, dotted);
    if (ep.module.empty() || i >= text.size() || text[i] != ':') return bad();
    ++i;
    ep.func = run(text, i, dotted);
    skip_space(text, i);
    if (ep.func.empty() || i != text.size()) return bad();
    // A name of dots alone would be no file under bin/.
    if (ep.command.find_first_not_of('.') == std::string::npos) return bad();
    ep.text = std::string(text);
    return ep;
}

std::string entry_point_script(const EntryPoint& ep, const std::string& python, LauncherStyle style) {
    const std::string import_name = ep.func.substr(0, ep.func.find('.'));
    const char* indent = style == LauncherStyle::rattler_build ? "\t" : "    ";
    std::string out;
    switch (style) {
        case LauncherStyle::conda_build: out = "#!" + python + "\n\n"; break;  // its template starts with a newline
        case LauncherStyle::conda:  // portability.generate_shebang_for_entry_point (Linux: 127)
            out = python.size() + 3 > 127 || python.find(' ') != std::string::npos ? wrapped(python) : "#!" + python + "\n";
            break;
        case LauncherStyle::rattler_build:  // PythonInfo::shebang
            out = python.size() > 125 || python.find(' ') != std::string::npos ? wrapped(python) : "#!" + python + "\n";
            break;
    }
    out += "# -*- coding: utf-8 -*-\nimport re\nimport sys\n\nfrom " + ep.module + " import " + import_name +
           "\n\nif __name__ == '__main__':\n";
    out += std::string(indent) + "sys.argv[0] = re.sub(r'(-script\\.pyw?|\\.exe)?$', '', sys.argv[0])\n";
    out += std::string(indent) + "sys.exit(" + ep.func + "())\n";
    return out;
}

}  // namespace sf::types
