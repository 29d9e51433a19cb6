#include "binary/wheel_inputs.hpp"

#include <algorithm>
#include <deque>
#include <set>

#include "archive/read.hpp"
#include "types/match_spec.hpp"
#include "util/strings.hpp"

namespace sf::binary {

namespace stdfs = std::filesystem;

namespace {

bool is_package_name(const std::string& n) { return str::ends_with(n, ".conda") || str::ends_with(n, ".tar.bz2"); }

void list_dir(const stdfs::path& dir, std::vector<stdfs::path>& out) {
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(dir, ec))
        if (e.is_regular_file(ec) && is_package_name(e.path().filename().string())) out.push_back(e.path());
}

// The better of two candidates for one name: the newest version, then the
// highest build number, then the build string (a stable tie-break).
bool better(const PackageFile& a, const PackageFile& b) {
    if (auto c = a.record.version <=> b.record.version; c != 0) return c > 0;
    if (a.record.build_number != b.record.build_number) return a.record.build_number > b.record.build_number;
    return a.record.build > b.record.build;
}

}  // namespace

Result<std::vector<PackageFile>> scan_packages(const stdfs::path& folder) {
    std::error_code ec;
    if (!stdfs::is_directory(folder, ec))
        return fail(SourceLoc{folder.string()}, "not a directory", "give a channel or a folder of .conda files");
    std::vector<stdfs::path> files;
    list_dir(folder, files);
    for (const auto& e : stdfs::directory_iterator(folder, ec))
        if (e.is_directory(ec) && !e.is_symlink(ec)) list_dir(e.path(), files);
    std::sort(files.begin(), files.end());
    std::map<std::string, PackageFile> by_dist;  // name-version-build -> package
    for (const auto& f : files) {
        auto meta = archive::read_package_metadata(f);
        if (!meta) return unexpected(meta.error());
        PackageFile p{f, std::move(meta->index), stdfs::file_size(f, ec)};
        const std::string dist = p.record.dist_name();
        auto it = by_dist.find(dist);
        if (it == by_dist.end() || str::ends_with(f.filename().string(), ".conda")) by_dist[dist] = std::move(p);
    }
    std::vector<PackageFile> out;
    for (auto& [_, p] : by_dist) out.push_back(std::move(p));
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.file.filename() < b.file.filename(); });
    return out;
}

Result<std::vector<const PackageFile*>> dependency_closure(const std::vector<PackageFile>& all,
                                                          const PackageFile& root,
                                                          const std::vector<std::string>& stop) {
    std::map<std::string, std::vector<const PackageFile*>> by_name;
    for (const auto& p : all) by_name[p.record.name].push_back(&p);
    std::vector<const PackageFile*> out{&root};
    std::set<std::string> seen{root.record.name};
    std::deque<const PackageFile*> todo{&root};
    while (!todo.empty()) {
        const PackageFile* p = todo.front();
        todo.pop_front();
        // Every spec of a name must hold ("libtorch 0.3.0 h0_0" and "libtorch >=0.3").
        std::map<std::string, std::vector<types::MatchSpec>> specs;
        for (const auto& d : p->record.depends) {
            auto spec = types::MatchSpec::parse(d);
            if (!spec)
                return fail(SourceLoc{p->file.filename().string()}, "dependency '" + d + "': " + spec.error().message);
            specs[spec->name()].push_back(std::move(*spec));
        }
        for (const auto& [name, list] : specs) {
            if (seen.count(name) || std::find(stop.begin(), stop.end(), name) != stop.end()) continue;
            auto it = by_name.find(name);
            if (it == by_name.end()) continue;
            const PackageFile* best = nullptr;
            for (const PackageFile* c : it->second) {
                const bool ok = std::all_of(list.begin(), list.end(), [&](const auto& s) { return s.matches(c->record); });
                if (ok && (!best || better(*c, *best))) best = c;
            }
            if (!best)
                return fail(SourceLoc{p->file.filename().string()},
                            "no package in the folder matches its dependency '" + list.front().str() + "'",
                            "build or copy that package into the folder first");
            seen.insert(name);
            out.push_back(best);
            todo.push_back(best);
        }
    }
    return out;
}

}  // namespace sf::binary
