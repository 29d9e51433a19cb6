#pragma once
// Hostile packages and channels, crafted at test time with libarchive (no
// binary fixtures): any member name, type, link target, duplicate, and any
// info/paths.json or repodata.json lie.
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/hash.hpp"

namespace sf::test::craft {

namespace stdfs = std::filesystem;
using json = nlohmann::json;

// One archive member. kind: 'f' file, 'd' directory, 'l' symlink, 'h' hard
// link (target: an earlier member), 'c' char device, 'b' block device, 'p' fifo.
struct Member {
    std::string name;
    char kind = 'f';
    std::string data;    // file content
    std::string target;  // symlink text / hard link source
    unsigned mode = 0644;
    bool listed = true;  // in the generated info/paths.json
    std::uint64_t zeros = 0;  // file: this many zero bytes instead of `data` (streamed, for bombs)
};

struct Pkg {
    std::string name, version = "1.0", build = "0";
    std::vector<std::string> depends;
    std::vector<Member> members;
    std::function<void(json&)> edit_paths;   // the generated info/paths.json
    std::function<void(json&)> edit_index;   // info/index.json
    std::function<void(json&)> edit_record;  // the repodata.json record
    std::string key;                         // repodata key; default: the file name
    std::string fn() const { return name + "-" + version + "-" + build + ".tar.bz2"; }
};

inline Pkg pkg_with(std::string name, std::vector<Member> members, std::vector<std::string> depends = {}) {
    Pkg p;
    p.name = std::move(name);
    p.members = std::move(members);
    p.depends = std::move(depends);
    return p;
}

inline json paths_json(const Pkg& p) {
    json paths = json::array();
    std::map<std::string, std::string> data;
    for (const auto& m : p.members) {
        if (m.kind == 'f') data[m.name] = m.data;
        if (m.kind == 'h') data[m.name] = data[m.target];
        if (!m.listed) continue;
        if (m.kind == 'f' || m.kind == 'h')
            paths.push_back({{"_path", m.name},
                             {"path_type", "hardlink"},
                             {"sha256", sf::hash::sha256(data[m.name])},
                             {"size_in_bytes", data[m.name].size()}});
        else if (m.kind == 'l')
            paths.push_back({{"_path", m.name}, {"path_type", "softlink"}});
        else if (m.kind == 'd')
            paths.push_back({{"_path", m.name}, {"path_type", "directory"}});
    }
    json j = {{"paths", paths}, {"paths_version", 1}};
    if (p.edit_paths) p.edit_paths(j);
    return j;
}

inline json index_json(const Pkg& p) {
    json j = {{"name", p.name},       {"version", p.version}, {"build", p.build},
              {"build_number", 0},    {"depends", p.depends}, {"subdir", "linux-64"},
              {"platform", "linux"},  {"arch", "x86_64"},     {"license", "MIT"}};
    if (p.edit_index) p.edit_index(j);
    return j;
}

enum class Filter { bzip2, gzip, zstd };

// Writes `members` in order as a pax tar compressed with `filter` (zstd at
// level 1, so a bomb of zeros is quick to make).
inline void write_tarball(const stdfs::path& file, const std::vector<Member>& members, Filter filter) {
    struct archive* a = archive_write_new();
    switch (filter) {
        case Filter::bzip2: archive_write_add_filter_bzip2(a); break;
        case Filter::gzip: archive_write_add_filter_gzip(a); break;
        case Filter::zstd:
            archive_write_add_filter_zstd(a);
            archive_write_set_filter_option(a, "zstd", "compression-level", "1");
            break;
    }
    archive_write_set_format_pax_restricted(a);
    archive_write_open_filename(a, file.c_str());
    for (const auto& m : members) {
        struct archive_entry* e = archive_entry_new();
        archive_entry_set_pathname(e, m.name.c_str());
        archive_entry_set_perm(e, m.mode);
        archive_entry_set_mtime(e, 0, 0);
        switch (m.kind) {
            case 'f':
                archive_entry_set_filetype(e, AE_IFREG);
                archive_entry_set_size(e, static_cast<la_int64_t>(m.zeros ? m.zeros : m.data.size()));
                break;
            case 'd': archive_entry_set_filetype(e, AE_IFDIR); break;
            case 'l': archive_entry_set_filetype(e, AE_IFLNK); archive_entry_set_symlink(e, m.target.c_str()); break;
            case 'h': archive_entry_set_filetype(e, AE_IFREG); archive_entry_set_hardlink(e, m.target.c_str()); archive_entry_set_size(e, 0); break;
            case 'c': archive_entry_set_filetype(e, AE_IFCHR); archive_entry_set_rdev(e, makedev(1, 3)); break;
            case 'b': archive_entry_set_filetype(e, AE_IFBLK); archive_entry_set_rdev(e, makedev(8, 0)); break;
            case 'p': archive_entry_set_filetype(e, AE_IFIFO); break;
        }
        archive_write_header(a, e);
        if (m.kind == 'f' && !m.data.empty()) archive_write_data(a, m.data.data(), m.data.size());
        if (m.kind == 'f' && m.zeros) {
            std::string chunk(1 << 20, '\0');
            for (std::uint64_t left = m.zeros; left > 0;) {
                std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, chunk.size()));
                archive_write_data(a, chunk.data(), n);
                left -= n;
            }
        }
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
}

// Writes p as a .tar.bz2 into `dir`; returns its path.
inline stdfs::path write_pkg(const stdfs::path& dir, const Pkg& p) {
    stdfs::create_directories(dir);
    stdfs::path file = dir / p.fn();
    std::string files;  // info/files, as conda-build writes it
    for (const auto& m : p.members)
        if (m.kind != 'd') files += m.name + "\n";
    std::vector<Member> members{{"info/index.json", 'f', index_json(p).dump(2)},
                                {"info/paths.json", 'f', paths_json(p).dump(2)},
                                {"info/files", 'f', files}};
    members.insert(members.end(), p.members.begin(), p.members.end());
    write_tarball(file, members, Filter::bzip2);
    return file;
}

// A channel with linux-64/ holding `pkgs` and an empty noarch/.
inline stdfs::path write_channel(const stdfs::path& ch, const std::vector<Pkg>& pkgs) {
    json rd = {{"info", {{"subdir", "linux-64"}}}, {"packages", json::object()}, {"packages.conda", json::object()},
               {"repodata_version", 1}};
    for (const auto& p : pkgs) {
        auto file = write_pkg(ch / "linux-64", p);
        auto d = sf::hash::file_digests(file);
        json rec = index_json(p);
        rec["sha256"] = d->sha256;
        rec["md5"] = d->md5;
        rec["size"] = d->size;
        if (p.edit_record) p.edit_record(rec);
        rd["packages"][p.key.empty() ? p.fn() : p.key] = rec;
    }
    std::ofstream(ch / "linux-64/repodata.json") << rd.dump(2);
    stdfs::create_directories(ch / "noarch");
    std::ofstream(ch / "noarch/repodata.json")
        << json({{"info", {{"subdir", "noarch"}}}, {"packages", json::object()}, {"packages.conda", json::object()}})
               .dump(2);
    return ch;
}

// Everything observable under `root` but the excluded top-level names: type,
// mode, size, mtime, link target.
inline std::map<std::string, std::string> scan(const stdfs::path& root, const std::vector<std::string>& exclude = {}) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(root, ec); it != stdfs::recursive_directory_iterator();
         it.increment(ec)) {
        std::string rel = it->path().lexically_relative(root).string();
        std::string top = rel.substr(0, rel.find('/'));
        bool skip = false;
        for (const auto& x : exclude) skip = skip || top == x;
        if (skip) {
            if (it->is_directory(ec) && !it->is_symlink(ec)) it.disable_recursion_pending();
            continue;
        }
        struct stat st{};
        ::lstat(it->path().c_str(), &st);
        std::string desc = std::to_string(st.st_mode) + " " + std::to_string(st.st_size) + " " +
                           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
        if (S_ISLNK(st.st_mode)) desc += " -> " + stdfs::read_symlink(it->path(), ec).string();
        out[rel] = desc;
    }
    return out;
}

// Starts the binary with `argv` (argv[0] a path), stdout to /dev/null and
// stderr to `log`; returns its pid (waitpid it).
inline pid_t spawn(const std::vector<std::string>& argv, const std::filesystem::path& log = "/dev/null") {
    std::cout.flush();  // or the child writes our buffered output a second time
    std::fflush(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
        if (!std::freopen(log.c_str(), "w", stderr) || !std::freopen("/dev/null", "w", stdout)) ::_exit(126);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    return pid;
}

// Waits for every pid of `spawn`; "" when each exited 0, else one line per
// failure followed by its log (logs[i] is pids[i]'s stderr).
inline std::string wait_all(const std::vector<pid_t>& pids, const std::vector<std::filesystem::path>& logs) {
    std::string failures;
    for (size_t i = 0; i < pids.size(); ++i) {
        int status = 0;
        ::waitpid(pids[i], &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
        std::ifstream in(logs[i]);
        std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        failures += "process " + std::to_string(i) + " failed (status " + std::to_string(status) + "):\n" + log;
    }
    return failures;
}

}  // namespace sf::test::craft
