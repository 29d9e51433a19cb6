#include "engine/work_dir.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace sf::engine {

namespace stdfs = std::filesystem;

std::string work_dir_name(const std::string& name, const stdfs::path& recipe_dir, const variant::Selection& selection) {
    std::error_code ec;
    std::string key = stdfs::absolute(recipe_dir, ec).lexically_normal().string();
    key += "\n" + selection.platform.name();
    for (const auto* files : {&selection.exclusive_files, &selection.variant_files})
        for (const auto& f : *files) key += "\n" + stdfs::absolute(f, ec).lexically_normal().string();
    for (const auto& [k, v] : selection.overrides) key += "\n" + k + "=" + v;
    return name + "-" + hash::sha256(key).substr(0, 10);
}

namespace {

// Removes `p`: a directory with what is in it, a symlink (or file) itself,
// never what a symlink points to.
void remove_entry(const stdfs::path& p) {
    std::error_code ec;
    auto st = stdfs::symlink_status(p, ec);
    if (ec) return;
    if (stdfs::is_directory(st)) stdfs::remove_all(p, ec);
    else stdfs::remove(p, ec);
}

}  // namespace

Result<WorkDir> WorkDir::claim(const stdfs::path& area, const std::string& name, const stdfs::path& recipe_dir,
                               const variant::Selection& selection) {
    std::error_code ec;
    stdfs::create_directories(area, ec);
    if (ec) return fail_runtime(SourceLoc{area.string()}, "cannot create the work area: " + ec.message());
    WorkDir w;
    const std::string stem = work_dir_name(name, recipe_dir, selection);
    auto lock = fs::LockFile::try_create(area / (stem + ".lock"));
    if (!lock) return unexpected(lock.error());
    if (*lock) {
        w.lock_ = std::move(*lock);
        w.path_ = area / stem;
        remove_entry(w.path_);  // a killed or kept build's, or one built with --keep-build
        stdfs::create_directories(w.path_, ec);
        if (ec) return fail_runtime(SourceLoc{w.path_.string()}, "cannot create the work dir: " + ec.message());
        return w;
    }
    w.kind_ = WorkKind::unique;
    w.unique_ = std::make_unique<fs::TempDir>("build-" + std::to_string(::getpid()), area);
    w.path_ = w.unique_->path();
    return w;
}

Result<WorkDir> WorkDir::claim_exact(const stdfs::path& dir) {
    std::error_code ec;
    stdfs::create_directories(dir.parent_path(), ec);
    if (ec) return fail_runtime(SourceLoc{dir.parent_path().string()}, "cannot create the work area: " + ec.message());
    auto lock = fs::LockFile::try_create(dir.string() + ".lock");
    if (!lock) return unexpected(lock.error());
    if (!*lock)
        return fail_runtime(SourceLoc{dir.string()}, "another build is using this work dir",
                            "wait for it, or run the jobs that restore this staging archive one at a time");
    WorkDir w;
    w.lock_ = std::move(*lock);
    w.path_ = dir;
    remove_entry(w.path_);
    stdfs::create_directories(w.path_, ec);
    if (ec) return fail_runtime(SourceLoc{w.path_.string()}, "cannot create the work dir: " + ec.message());
    return w;
}

WorkDir::WorkDir(WorkDir&& o) noexcept
    : path_(std::move(o.path_)), kind_(o.kind_), keep_(o.keep_), lock_(std::move(o.lock_)), unique_(std::move(o.unique_)) {
    o.path_.clear();
}

WorkDir::~WorkDir() {
    if (keep_ || path_.empty()) return;
    if (kind_ == WorkKind::stable) {
        std::error_code ec;
        stdfs::remove_all(path_, ec);
    }
    unique_.reset();  // removes a unique dir
    lock_.reset();    // then the lock file
}

stdfs::path WorkDir::keep() {
    keep_ = true;
    if (unique_) unique_->release();
    return path_;
}

void sweep_work_area(const stdfs::path& area) {
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(area, ec)) {
        const std::string fn = e.path().filename().string();
        std::error_code sec;
        auto st = e.symlink_status(sec);  // entries are never followed
        if (sec) continue;
        if (str::ends_with(fn, ".lock")) {
            // A stable dir whose build is gone: its lock file is there, unheld.
            if (!stdfs::is_regular_file(st)) continue;
            auto lock = fs::LockFile::try_create(e.path());
            if (!lock || !*lock) continue;
            remove_entry(area / fn.substr(0, fn.size() - 5));
            continue;  // the lock file goes with the lock
        }
        if (!stdfs::is_directory(st)) continue;
        auto parts = str::split(fn, '-');
        if (parts.size() != 3 || parts[0] != "build") continue;
        char* end = nullptr;
        long pid = std::strtol(parts[1].c_str(), &end, 10);
        if (pid <= 0 || *end != '\0' || pid == ::getpid()) continue;
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
        remove_entry(e.path());
    }
}

}  // namespace sf::engine
