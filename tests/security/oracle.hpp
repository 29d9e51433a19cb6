#pragma once
// What the concurrency and kill tests check a channel and an output folder
// with: the independent conda-check oracle (node), our own reading of
// repodata.json, and the leftovers a killed or racing run could leave.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process/process.hpp"
#include "testutil.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::test::oracle {

namespace stdfs = std::filesystem;

inline bool have_node() {
    auto env = process::current_env();
    return process::find_executable("node", env["PATH"]).has_value();
}

// scripts/conda-check.sh CHANNEL --strict: "" when it passes, else its report.
// Without node it fails (scripts/deps.sh installs it): never a silent pass.
inline std::string conda_check(const stdfs::path& channel) {
    if (!have_node()) return "node is missing (bash scripts/deps.sh, or apt-get install nodejs npm)";
    process::Command c;
    c.argv = {"bash", (source_dir() / "scripts/conda-check.sh").string(), channel.string(), "--strict"};
    c.env = process::current_env();
    // The build dir holding our binary keeps conda-check's node_modules.
    c.env["SF_BUILD_DIR"] = binary().parent_path().parent_path().filename().string();
    auto r = process::capture(c);
    if (!r) return r.error().str();
    if (r->exit_code == 0 && r->out.find(" 0 failed") != std::string::npos) return {};
    return r->out + r->err;
}

// The package files of each subdir of `channel` as its repodata.json lists
// them ("linux-64/x-1-0.conda"), checked against the files there: each file
// listed once, with its size and sha256, and no file unlisted. Problems go
// to `problems`.
inline std::multiset<std::string> indexed_packages(const stdfs::path& channel, std::vector<std::string>& problems) {
    std::multiset<std::string> out;
    std::error_code ec;
    for (const auto& sub : stdfs::directory_iterator(channel, ec)) {
        if (!sub.is_directory() || !stdfs::exists(sub.path() / "repodata.json")) continue;
        std::string subdir = sub.path().filename().string();
        auto rd = nlohmann::json::parse(slurp(sub.path() / "repodata.json"), nullptr, false);
        if (rd.is_discarded()) {
            problems.push_back(subdir + "/repodata.json is not valid JSON");
            continue;
        }
        std::set<std::string> listed;
        for (const char* key : {"packages", "packages.conda"}) {
            if (!rd.contains(key)) continue;
            for (const auto& [fn, rec] : rd[key].items()) {
                out.insert(subdir + "/" + fn);
                listed.insert(fn);
                auto d = hash::file_digests(sub.path() / fn);
                if (!d) problems.push_back(subdir + "/" + fn + " is listed but missing");
                else if (rec.value("sha256", "") != d->sha256 || rec.value("size", std::uint64_t{0}) != d->size)
                    problems.push_back(subdir + "/" + fn + ": size or sha256 differ from the file");
            }
        }
        for (const auto& f : stdfs::directory_iterator(sub.path(), ec)) {
            std::string fn = f.path().filename().string();
            if ((str::ends_with(fn, ".conda") || str::ends_with(fn, ".tar.bz2")) && fn[0] != '.' && !listed.count(fn))
                problems.push_back(subdir + "/" + fn + " is not in repodata.json");
        }
    }
    return out;
}

// Temp files, staging and extraction dirs, trash and build work dirs
// anywhere under root.
inline std::vector<std::string> leftovers(const stdfs::path& root) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(root, ec); it != stdfs::recursive_directory_iterator();
         it.increment(ec)) {
        std::string n = it->path().filename().string();
        std::string parent = it->path().parent_path().filename().string();
        if (n.find(".tmp-") != std::string::npos || n.find(".sftmp-") != std::string::npos || n.find("staging-") != std::string::npos ||
            n.find(".extract-") != std::string::npos || n.find(".sf-extract") != std::string::npos ||
            str::starts_with(n, ".splitforge-trash") || (parent == ".splitforge-work" && str::starts_with(n, "build-")))
            out.push_back(it->path().lexically_relative(root).string());
    }
    return out;
}

}  // namespace sf::test::oracle
