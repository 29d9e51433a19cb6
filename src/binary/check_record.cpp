#include "binary/check_record.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::binary {

namespace stdfs = std::filesystem;

namespace {

std::string hex_to_bytes(const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

// The one *.dist-info/ directory at the top; empty when there is not exactly one.
std::string dist_info_dir(const std::vector<std::string>& files) {
    std::set<std::string> dirs;
    for (const auto& f : files) {
        auto slash = f.find('/');
        if (slash != std::string::npos && str::ends_with(f.substr(0, slash), ".dist-info")) dirs.insert(f.substr(0, slash));
    }
    return dirs.size() == 1 ? *dirs.begin() : std::string();
}

bool unhashed_ok(const std::string& dist_info, const std::string& path) {
    return path == dist_info + "/RECORD" || path == dist_info + "/RECORD.jws" || path == dist_info + "/RECORD.p7s";
}

}  // namespace

std::string urlsafe_b64_nopad(const std::string& bytes) {
    static const char* const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                     static_cast<unsigned char>(bytes[i + 2]);
        for (int s = 18; s >= 0; s -= 6) out += abc[(v >> s) & 63];
    }
    std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += abc[(v >> 18) & 63];
        out += abc[(v >> 12) & 63];
        if (rest == 2) out += abc[(v >> 6) & 63];
    }
    return out;
}

std::vector<std::string> parse_csv_row(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
            else if (c == '"') quoted = false;
            else out.back() += c;
        } else if (c == '"') quoted = true;
        else if (c == ',') out.emplace_back();
        else if (c != '\r') out.back() += c;
    }
    return out;
}

std::vector<Finding> check_record(const std::string& artifact, const stdfs::path& root,
                                  const std::vector<std::string>& files) {
    std::vector<Finding> out;
    std::string di = dist_info_dir(files);
    if (di.empty()) return {{artifact, "*.dist-info/", "not exactly one .dist-info directory at the top"}};
    std::string record = di + "/RECORD";
    auto text = fs::read_file(root / record);
    if (!text) return {{artifact, record, "missing or unreadable: " + text.error().message}};
    std::map<std::string, int> listed;
    int lineno = 0;
    for (const auto& line : str::split_lines(*text)) {
        ++lineno;
        if (line.empty()) continue;
        std::string where = record + ":" + std::to_string(lineno);
        auto row = parse_csv_row(line);
        if (row.size() != 3) { out.push_back({artifact, where, "expected path,hash,size"}); continue; }
        const std::string& path = row[0];
        if (++listed[path] == 2) out.push_back({artifact, where, path + " is listed twice"});
        if (!std::binary_search(files.begin(), files.end(), path)) {
            out.push_back({artifact, where, path + " is listed but not in the wheel"});
            continue;
        }
        if (row[1].empty() && unhashed_ok(di, path)) continue;
        if (!str::starts_with(row[1], "sha256=")) {
            out.push_back({artifact, path, "RECORD hash '" + row[1] + "' is not sha256=..."});
            continue;
        }
        auto d = hash::file_digests(root / path);
        if (!d) { out.push_back({artifact, path, d.error().message}); continue; }
        std::string want = "sha256=" + urlsafe_b64_nopad(hex_to_bytes(d->sha256));
        if (row[1] != want) out.push_back({artifact, path, "RECORD hash " + row[1] + " does not match the file (" + want + ")"});
        if (row[2] != std::to_string(d->size))
            out.push_back({artifact, path, "RECORD size " + row[2] + " does not match the file (" + std::to_string(d->size) + ")"});
    }
    for (const auto& f : files)
        if (!listed.count(f) && f != di + "/RECORD.jws" && f != di + "/RECORD.p7s")
            out.push_back({artifact, f, "not listed in " + record});
    return out;
}

}  // namespace sf::binary
