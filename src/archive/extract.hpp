#pragma once
// Safe extraction, shared by packages (archive/read.cpp) and source archives
// (source/source_extract.cpp): one TreeWriter applies the same checks to
// every member, whatever archive it comes from.
//   - names are relative, without "..", and never written through a symlink
//     (make_member_parents), nor over anything (O_EXCL | O_NOFOLLOW);
//   - symlinks stay inside the tree (symlink_stays_inside);
//   - hard links name an earlier regular file of the same archive;
//   - no devices, fifos or sockets; no setuid/setgid bits;
//   - a name appears once (directories may repeat), at most kMaxMembers;
//   - the sizes the headers declare, and the bytes actually written, stay
//     below a budget (extraction_limit()): a bomb is refused before its data.
//     Every member also costs kMemberCost bytes plus its name against that
//     budget, as a file costs at least a block and an inode: the budget
//     bounds the work, not only the bytes (a million empty members in 2 MB).
// Errors are the bare reason; the caller says which archive.
#include <cstdint>
#include <filesystem>
#include <map>
#include <unordered_set>
#include <string>
#include <utility>
#include <vector>

#include "archive/read.hpp"
#include "core/error.hpp"

struct archive;  // libarchive's, at global scope
struct archive_entry;

namespace sf::archive {

// The member libarchive is positioned at, normalized ("./" dropped).
Entry entry_of(struct ::archive_entry* e);

enum class OwnerAccess {
    as_stored,  // packages: the modes they carry (minus setuid/setgid)
    read_write  // source trees: the owner may always read and write (patches)
};

// zip members carry a CRC-32 of their data, which libarchive only warns
// about: the zip reader computes it over what was actually written.
enum class DataCrc { skip, crc32 };

// Symlink targets a tree may hold: only ones that stay inside it (packages,
// sources), or any, kept as written (a build tree restored where it was
// built: its absolute links are the build's). Either way no member is ever
// written through a symlink.
enum class LinkTargets { inside, any };

struct TreeLimits {
    std::uint64_t budget = 0;         // bytes; extraction_limit(archive size)
    std::string container = "package";  // "points outside the <container>"
    OwnerAccess access = OwnerAccess::as_stored;
    DataCrc crc = DataCrc::skip;
    LinkTargets links = LinkTargets::inside;
};

// The data of the last regular file written (with DataCrc::crc32).
struct DataSum {
    std::uint32_t crc32 = 0;
    std::uint64_t size = 0;
    bool in_order = true;  // false: blocks came out of order (sparse): no CRC
};

class TreeWriter {
public:
    // `root` exists and is empty (a fresh temporary directory).
    TreeWriter(std::filesystem::path root, TreeLimits limits);
    // Writes member `e`, whose data `a` is positioned at.
    Result<void> add(struct ::archive* a, const Entry& e);
    // Applies the directories' modes (deepest first); call once at the end.
    void finish();
    const DataSum& last_data() const { return last_; }

private:
    Result<void> write_data(struct ::archive* a, const std::filesystem::path& dst, const Entry& e,
                            const std::string& rel);
    Result<void> over_budget(std::size_t members = 0) const;
    std::filesystem::path root_;
    TreeLimits limits_;
    std::map<std::string, EntryType> seen_;
    std::unordered_set<std::string> dirs_;  // real directories below root_, checked or made
    struct DirMode {
        std::filesystem::path path;
        unsigned mode;
        std::optional<struct ::timespec> mtime;
    };
    std::vector<DirMode> dir_modes_;
    std::uint64_t declared_ = 0, written_ = 0;
    std::uint64_t overhead_ = 0;  // the members' share of declared_ (kMemberCost and names)
    DataSum last_;
};

}  // namespace sf::archive
