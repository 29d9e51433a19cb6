#pragma once
// Where a build works: <output>/.splitforge-work/<name>-<hash>, the same
// path on every build of a recipe (and selection) into that folder, so that
// what compilers and linkers record of it (RPATHs of the build tree,
// __FILE__, the linker's build-id) comes out the same and two builds give
// the same bytes. A lock file beside it keeps a concurrent build of the same
// recipe out: that build works in build-<pid>-XXXXXX instead. What a killed
// build left is swept by the next build into the folder.
#include <filesystem>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "variant/selection.hpp"

namespace sf::fs {
class LockFile;
class TempDir;
}  // namespace sf::fs

namespace sf::engine {

enum class WorkKind { stable, unique };  // the recipe's own dir, or a fallback

class WorkDir {
public:
    // Claims (and empties) the recipe's dir in `area`, or makes a unique one
    // when another build holds it.
    static Result<WorkDir> claim(const std::filesystem::path& area, const std::string& name,
                                 const std::filesystem::path& recipe_dir, const variant::Selection& selection);
    // Claims (and empties) exactly `dir`, a stable dir of a work area
    // (--from-staging restores a build tree where it was built); another
    // build holding it is an error.
    static Result<WorkDir> claim_exact(const std::filesystem::path& dir);
    WorkDir(WorkDir&& o) noexcept;
    WorkDir& operator=(WorkDir&&) = delete;
    ~WorkDir();

    const std::filesystem::path& path() const { return path_; }
    WorkKind kind() const { return kind_; }
    // Leaves the dir in place (--keep-build); the next build of the recipe
    // into this folder replaces it.
    std::filesystem::path keep();

private:
    WorkDir() = default;
    std::filesystem::path path_;
    WorkKind kind_ = WorkKind::stable;
    bool keep_ = false;
    std::unique_ptr<fs::LockFile> lock_;
    std::unique_ptr<fs::TempDir> unique_;
};

// The stable dir's name: <name>-<10 hex digits of the recipe dir and the selection>.
std::string work_dir_name(const std::string& name, const std::filesystem::path& recipe_dir,
                          const variant::Selection& selection);

// Removes what builds that are gone left in `area`: build-<pid>-* dirs of dead
// processes, and stable dirs whose lock file nobody holds.
void sweep_work_area(const std::filesystem::path& area);

}  // namespace sf::engine
