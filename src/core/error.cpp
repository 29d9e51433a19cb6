#include "core/error.hpp"

namespace sf {

std::string SourceLoc::str() const {
    if (file.empty()) return {};
    std::string s = file;
    if (line > 0) {
        s += ':' + std::to_string(line);
        if (col > 0) s += ':' + std::to_string(col);
    }
    return s;
}

std::string Error::str() const {
    std::string s;
    std::string where = loc.str();
    if (!where.empty()) s = where + ": ";
    s += message;
    if (!hint.empty()) s += " (" + hint + ")";
    // One line, always: fold any newline the message picked up.
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    return s;
}

}  // namespace sf
