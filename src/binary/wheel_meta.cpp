#include "binary/wheel_meta.hpp"

#include <algorithm>
#include <cctype>

#include "util/strings.hpp"

namespace sf::binary {

std::string urlsafe_b64_nopad(std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    auto at = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
    for (; i + 3 <= bytes.size(); i += 3) {
        const unsigned v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
        for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest == 1) {
        const unsigned v = at(i) << 16;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
    } else if (rest == 2) {
        const unsigned v = (at(i) << 16) | (at(i + 1) << 8);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
    }
    return out;
}

Result<std::string> record_hash_from_hex(std::string_view hex) {
    if (hex.size() != 64) return fail("not a SHA-256 hex digest: '" + std::string(hex) + "'");
    std::string raw;
    for (std::size_t k = 0; k < hex.size(); k += 2) {
        auto nib = [](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            return -1;
        };
        const int hi = nib(hex[k]), lo = nib(hex[k + 1]);
        if (hi < 0 || lo < 0) return fail("not a SHA-256 hex digest: '" + std::string(hex) + "'");
        raw += static_cast<char>(hi * 16 + lo);
    }
    return "sha256=" + urlsafe_b64_nopad(raw);
}

namespace {

// Python's csv.writer with the default dialect: QUOTE_MINIMAL, '"' doubled.
std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

std::string one_line(std::string_view s) {
    std::string out(str::trim(s));
    for (char& c : out)
        if (c == '\n' || c == '\r') c = ' ';
    return out;
}

}  // namespace

std::string record_text(const std::vector<RecordEntry>& entries, std::string_view record_path) {
    std::string out;
    for (const auto& e : entries)
        out += csv_field(e.path) + ',' + csv_field(e.hash) + ',' + std::to_string(e.size) + '\n';
    return out + csv_field(record_path) + ",,\n";
}

std::string metadata_text(const WheelMetadata& m) {
    std::string out = "Metadata-Version: 2.1\nName: " + one_line(m.name) + "\nVersion: " + one_line(m.version) + '\n';
    if (!m.summary.empty()) out += "Summary: " + one_line(m.summary) + '\n';
    if (!m.home_page.empty()) out += "Home-page: " + one_line(m.home_page) + '\n';
    if (!m.license.empty()) out += "License: " + one_line(m.license) + '\n';
    if (!m.requires_python.empty()) out += "Requires-Python: " + one_line(m.requires_python) + '\n';
    return out;
}

std::string wheel_text(std::string_view generator, const std::vector<std::string>& tags) {
    std::string out = "Wheel-Version: 1.0\nGenerator: " + std::string(generator) + "\nRoot-Is-Purelib: false\n";
    for (const auto& t : tags) out += "Tag: " + t + '\n';
    return out;
}

std::string local_version(std::string_view build) {
    const auto parts = str::split(build, '_');
    if (parts.empty()) return {};
    std::string label;
    const std::string& first = parts[0];
    if (first == "cpu") {
        label = "cpu";
    } else if (str::starts_with(first, "cuda") && first.size() > 4 &&
               std::all_of(first.begin() + 4, first.end(), [](unsigned char c) { return std::isdigit(c); })) {
        label = "cu" + first.substr(4);
    } else {
        return {};
    }
    if (parts.size() > 1 && parts[1] != "generic" && !str::starts_with(parts[1], "py") &&
        std::all_of(parts[1].begin(), parts[1].end(), [](unsigned char c) { return std::isalnum(c); }))
        label += "." + parts[1];
    return label;
}

Result<std::string> wheel_version(std::string_view conda_version, std::string_view local) {
    // Digits and dots, with PEP 440's pre/post/dev spellings after them.
    static constexpr std::string_view kLetters = "abcrcpostdev";
    bool ok = !conda_version.empty() && std::isdigit(static_cast<unsigned char>(conda_version[0]));
    for (char c : conda_version)
        ok = ok && (std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
                    kLetters.find(c) != std::string_view::npos);
    if (!ok)
        return fail("conda version '" + std::string(conda_version) + "' is not a PEP 440 version",
                    "wheels need versions like 1.2.3, 1.2.3rc1 or 1.2.3.post1");
    std::string v(conda_version);
    if (!local.empty()) v += "+" + std::string(local);
    return v;
}

std::string python_minor(const std::vector<std::string>& depends) {
    for (const auto& d : depends) {
        const auto parts = str::split(std::string(str::trim(d)), ' ');
        if (parts.size() < 2 || parts[0] != "python") continue;
        // The first X.Y in the constraint: ">=3.12,<3.13.0a0", "3.12.*", "3.12".
        std::string_view s = parts[1];
        std::size_t k = s.find_first_of("0123456789");
        if (k == std::string_view::npos) continue;
        std::size_t dot = s.find('.', k);
        if (dot == std::string_view::npos) continue;
        std::size_t end = dot + 1;
        while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
        if (end == dot + 1) continue;
        return std::string(s.substr(k, end - k));
    }
    return {};
}

std::string cpython_tag(std::string_view minor) {
    std::string t = "cp";
    for (char c : minor)
        if (c != '.') t += c;
    return t;
}

std::string requires_python_for(std::string_view minor) {
    const std::size_t dot = minor.find('.');
    if (dot == std::string_view::npos) return {};
    const int m = std::stoi(std::string(minor.substr(dot + 1)));
    return ">=" + std::string(minor) + ",<" + std::string(minor.substr(0, dot)) + "." + std::to_string(m + 1);
}

std::string hashed_library_name(std::string_view file_name, std::string_view sha256_hex) {
    const std::string hash(sha256_hex.substr(0, 8));
    const std::size_t dot = file_name.find('.');
    const std::string_view base = file_name.substr(0, dot);
    const std::string_view ext = dot == std::string_view::npos ? std::string_view{} : file_name.substr(dot);
    if (str::ends_with(base, "-" + hash)) return std::string(file_name);
    return std::string(base) + "-" + hash + std::string(ext);
}

}  // namespace sf::binary

namespace sf::binary {

std::string wheel_member_path(std::string_view rel, std::string_view site, std::string_view dist) {
    const std::string d(dist);
    const auto parts = str::split(rel, '/');
    if (std::find(parts.begin(), parts.end(), "__pycache__") != parts.end()) return {};
    if (str::starts_with(rel, site)) {
        const std::string_view in = rel.substr(site.size());
        const std::string_view top = in.substr(0, in.find('/'));
        if (in.find('/') != std::string_view::npos && (str::ends_with(top, ".dist-info") || str::ends_with(top, ".egg-info")))
            return {};
        return std::string(in);
    }
    const auto under = [&](std::string_view top) { return str::starts_with(rel, top); };
    if (under("lib/cmake/")) return d + "/share/cmake/" + std::string(rel.substr(10));
    if (under("lib/") && rel.find('/', 4) == std::string_view::npos && rel.find(".so") != std::string_view::npos)
        return d + "/lib/" + std::string(rel.substr(4));
    if (under("include/") || under("share/") || under("bin/")) return d + "/" + std::string(rel);
    return {};
}

}  // namespace sf::binary
