#include "binary/wheel_prefix.hpp"

#include <filesystem>

#include "binary/wheel_meta.hpp"
#include "util/strings.hpp"

namespace sf::binary {

namespace stdfs = std::filesystem;

namespace {

// Characters a path after the placeholder may hold; anything else (a quote,
// whitespace, `;`, `)`, `$` of a variable) ends it.
bool path_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '.' ||
           c == '_' || c == '-' || c == '+';
}

// Where the prefix-relative `rest` is in the wheel: a file by the layout's
// rule, else a directory whose every child maps below one wheel directory
// (include/, share/, bin/, lib/cmake/, site-packages/...; not lib/, whose
// non-libraries have no place). Empty with `ok` false: nowhere.
std::string wheel_place(const std::string& rest, std::string_view site, std::string_view dist, bool& ok) {
    ok = true;
    if (auto m = wheel_member_path(rest, site, dist); !m.empty()) return m;
    const std::string probe = wheel_member_path(rest + "/x", site, dist);
    if (str::ends_with(probe, "/x")) return probe.substr(0, probe.size() - 2);
    if (probe == "x") return "";  // site-packages itself: the wheel's root
    ok = false;
    return {};
}

// `to` (relative to the wheel's root; empty: the root) as seen from the
// directory of `from`.
std::string relative_to_file(const std::string& from, const std::string& to) {
    const stdfs::path dir = stdfs::path(from).parent_path();
    std::string r;
    if (to.empty())
        for (const auto& part : dir) r += part.empty() ? "" : "../";
    else
        r = stdfs::path(to).lexically_relative(dir).generic_string();
    while (!r.empty() && r.back() == '/') r.pop_back();
    return r.empty() || r == "." ? "${CMAKE_CURRENT_LIST_DIR}" : "${CMAKE_CURRENT_LIST_DIR}/" + r;
}

Unexpected<Error> refuse(const PlaceholderFile& f, const std::string& why, const std::string& hint) {
    return fail(SourceLoc{f.package + ": " + f.rel}, why, hint);
}

}  // namespace

Result<void> placeholder_file_allowed(const PlaceholderFile& f, std::string_view dist) {
    const std::string hint = "make the file relocatable in the recipe: paths relative to the file";
    if (f.binary)
        return refuse(f, "holds the conda prefix placeholder in binary mode, which a wheel cannot replace at install time",
                      hint);
    const std::string cmake_dir = std::string(dist) + "/share/cmake/";
    if (!str::starts_with(f.dest, cmake_dir) || !str::ends_with(f.dest, ".cmake"))
        return refuse(f, "holds the conda prefix placeholder, which a wheel cannot replace at install time (only CMake "
                         "files under " + cmake_dir + " are made relative to themselves)", hint);
    return {};
}

Result<std::string> relocate_placeholder_text(const PlaceholderFile& f, std::string_view text, std::string_view site,
                                              std::string_view dist,
                                              const std::function<bool(const std::string&)>& ships) {
    const std::string hint = "make the file relocatable in the recipe: paths relative to the file";
    if (auto ok = placeholder_file_allowed(f, dist); !ok) return unexpected(ok.error());
    std::string out;
    std::size_t at = 0;
    const std::string& ph = f.placeholder;
    for (std::size_t hit; (hit = text.find(ph, at)) != std::string_view::npos;) {
        out.append(text.substr(at, hit - at));
        std::size_t end = hit + ph.size();
        while (end < text.size() && path_char(text[end])) ++end;
        std::string rest(text.substr(hit + ph.size(), end - hit - ph.size()));
        while (!rest.empty() && rest.back() == '/') rest.pop_back();
        bool ok = !rest.empty() && rest[0] == '/';
        for (const auto& part : str::split(rest, '/'))
            if (part == "." || part == "..") ok = false;  // named plainly or not at all
        const std::string place = ok ? wheel_place(rest.substr(1), site, dist, ok) : "";
        if (!ok || !ships(place))
            return refuse(f, "uses the conda prefix as '" + std::string(text.substr(hit, end - hit)) +
                                 "', which the wheel does not ship at a place it can name relative to the file",
                          hint);
        out += relative_to_file(f.dest, place);
        // A trailing '/' the path ended with stays, as do the characters after it.
        at = hit + ph.size() + rest.size();
    }
    out.append(text.substr(at));
    return out;
}

}  // namespace sf::binary
