#include "script/ninja_log.hpp"

#include <system_error>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace sf::script {

namespace stdfs = std::filesystem;

namespace {

std::vector<stdfs::path> find_logs(const stdfs::path& dir) {
    std::vector<stdfs::path> out;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(dir, ec); !ec && it != stdfs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it.depth() >= 3) it.disable_recursion_pending();
        if (it->path().filename() == ".ninja_log") out.push_back(it->path());
    }
    return out;
}

std::vector<std::string> read_lines(const stdfs::path& p) {
    auto text = fs::read_file(p);  // a FIFO named .ninja_log is not waited on
    return text ? str::split_lines(*text) : std::vector<std::string>{};
}

}  // namespace

NinjaLogs snapshot_ninja_logs(const stdfs::path& src_dir) {
    NinjaLogs s;
    for (const auto& p : find_logs(src_dir)) {
        auto lines = read_lines(p);
        s.lines[p] = std::set<std::string>(lines.begin(), lines.end());
    }
    return s;
}

std::vector<std::string> ninja_edges_since(const stdfs::path& src_dir, const NinjaLogs& before) {
    static const std::set<std::string> none;
    std::vector<std::string> out;
    for (const auto& p : find_logs(src_dir)) {
        auto it = before.lines.find(p);
        const auto& old = it == before.lines.end() ? none : it->second;
        // Two trees (shared and static) hold edges of the same name.
        const std::string tree = p.parent_path().lexically_relative(src_dir).generic_string() + "/";
        for (const auto& line : read_lines(p)) {
            if (line.empty() || line[0] == '#' || old.count(line)) continue;
            auto f = str::split(line, '\t');
            if (f.size() >= 4) out.push_back(tree + f[3]);
        }
    }
    return out;
}

}  // namespace sf::script
