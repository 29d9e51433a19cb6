#pragma once
// Archive writing primitives: byte sinks, streaming zstd (multi-threaded) and
// bzip2 compressors, a reproducible tar writer (libarchive) and a zip writer
// (STORED, or raw deflate through zlib). Generic: nothing here knows about
// conda packages or recipes.
//
// Everything streams: file payloads are read in chunks, compressed and
// written out as they go, so memory use does not grow with the payload.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sf::archive {

namespace stdfs = std::filesystem;

// Something bytes are written to, in order. finish() flushes what is buffered
// and ends any compressed frame; it does not close what it writes to.
class ByteSink {
public:
    virtual ~ByteSink() = default;
    virtual Result<void> write(const void* data, std::size_t size) = 0;
    virtual Result<void> finish() { return {}; }
};

// A new file written next to its final path (under fs::temp_name(), ".<name>.sftmp-<pid>-<random>")
// and renamed over it by commit(); removed if never committed. Buffered.
class OutputFile : public ByteSink {
public:
    static Result<std::unique_ptr<OutputFile>> create(const stdfs::path& final_path);
    ~OutputFile() override;
    Result<void> write(const void* data, std::size_t size) override;
    Result<void> finish() override;  // flushes the buffer
    std::uint64_t position() const { return pos_; }
    // Overwrites bytes already written (flushes first). For header patching.
    Result<void> patch(std::uint64_t offset, const void* data, std::size_t size);
    Result<void> commit();  // flush, fsync, rename over the final path
    const stdfs::path& final_path() const { return final_; }

private:
    OutputFile() = default;
    Result<void> flush();
    int fd_ = -1;
    stdfs::path final_, tmp_;
    std::vector<char> buf_;
    std::uint64_t pos_ = 0;
    bool committed_ = false;
};

enum class Codec { zstd, bzip2, none };

struct Compression {
    Codec codec = Codec::zstd;
    int level = 19;   // zstd 1..22 (19 as conda-build), bzip2 1..9
    int threads = 1;  // zstd worker threads; the output bytes do not depend on it
};

// An upper bound of the compressed size of `n` input bytes.
std::uint64_t compress_bound(std::uint64_t n, const Compression& c);

// Wraps `out`: bytes written to the result are compressed into `out`.
// finish() ends the frame (and finishes `out` too).
Result<std::unique_ptr<ByteSink>> compressor(ByteSink& out, const Compression& c);

// ---- tar ----------------------------------------------------------------

enum class EntryKind { file, symlink, directory };

struct TarEntry {
    std::string name;              // relative, '/'-separated path inside the archive
    EntryKind kind = EntryKind::file;
    stdfs::path source;            // file: streamed from here, unless empty ...
    std::string content;           // ... in which case this is the content
    std::string link_target;       // symlink: the link text, stored as is
    unsigned mode = 0644;          // permission bits (symlinks are always 0777)
    std::int64_t mtime_s = 0;      // the source's mtime (tree_entries), for Times::kept
    long mtime_ns = 0;
};

// Packages are reproducible: one mtime for every entry. A build tree that
// is restored later (staging archives) keeps each file's, so ninja finds it
// up to date.
enum class Times { fixed, kept };

struct TarOptions {
    std::int64_t mtime = 0;  // Times::fixed: every entry gets this mtime; uid/gid 0, no user/group names
    Times times = Times::fixed;
};

// Upper bound of the uncompressed tar size for `entries` (for zip64 decisions).
std::uint64_t tar_size_bound(const std::vector<TarEntry>& entries);

// Writes `entries` in the given order (sort them first for reproducibility) as
// a pax tar, compressed with `c`, into `out`. Calls out.finish().
// Returns the number of uncompressed tar bytes.
Result<std::uint64_t> write_tar(ByteSink& out, const std::vector<TarEntry>& entries,
                                const TarOptions& opts, const Compression& c);

// Every file, symlink and *empty* directory under `root` (symlinks are not
// followed), named relative to root, sorted by name. `exclude_top` lists
// top-level names to skip (e.g. "info").
Result<std::vector<TarEntry>> tree_entries(const stdfs::path& root,
                                           const std::vector<std::string>& exclude_top = {});

// Sorts entries by name (byte order).
void sort_entries(std::vector<TarEntry>& entries);

// ---- zip (STORED, or deflate on request) -------------------------------

std::uint32_t crc32(std::uint32_t crc, const void* data, std::size_t size);

enum class ZipMethod { stored, deflate };

// What a member's local header and central directory entry say of its data.
struct ZipMemberInfo {
    ZipMethod method = ZipMethod::stored;
    std::uint32_t crc = 0;     // of the uncompressed bytes
    std::uint64_t size = 0;    // uncompressed
    std::uint64_t csize = 0;   // as stored in the zip
};

// Writes a zip: STORED members unless a member asks for deflate (raw
// deflate at `deflate_level`, zlib's 1..9). Members use zip64 only when
// their size or offset needs it. DOS times come from one fixed mtime.
class ZipWriter {
public:
    ZipWriter(OutputFile& out, std::int64_t mtime, int deflate_level = 6);
    // `mode`: the permission bits unzip and pip restore (e.g. 0755 for an
    // executable), kept in the central directory's external attributes.
    Result<void> add(const std::string& name, std::string_view data, unsigned mode = 0644);
    // A member whose bytes are produced by `produce` writing into the given
    // sink; `max_size` bounds the size (it decides zip64 up front). With
    // deflate, `compressed_copy` (optional) also gets the member's data as
    // stored, for add_raw() to write again into another zip.
    Result<void> add_streamed(const std::string& name, std::uint64_t max_size,
                              const std::function<Result<void>(ByteSink&)>& produce, unsigned mode = 0644,
                              ZipMethod method = ZipMethod::stored, ByteSink* compressed_copy = nullptr);
    // A member whose data is already in its stored form (what
    // `compressed_copy` kept): `produce` writes exactly info.csize bytes.
    Result<void> add_raw(const std::string& name, const ZipMemberInfo& info,
                         const std::function<Result<void>(ByteSink&)>& produce, unsigned mode = 0644);
    // The member added last.
    ZipMemberInfo last() const;
    Result<void> finish();  // central directory; does not commit `out`

private:
    struct Member {
        std::string name;
        std::uint32_t crc = 0;
        std::uint64_t size = 0, csize = 0, offset = 0;
        unsigned mode = 0644;
        ZipMethod method = ZipMethod::stored;
    };
    Result<void> write_local_header(const Member& m, bool zip64);
    Result<void> patch_local_header(const Member& m, bool zip64);
    OutputFile& out_;
    int level_ = 6;
    std::uint16_t dos_time_ = 0, dos_date_ = 0;
    std::vector<Member> members_;
};

}  // namespace sf::archive
