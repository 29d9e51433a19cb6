// Reproducible tar writing through libarchive (pax format), streamed into a
// compressor sink.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "archive/write.hpp"
#include "util/fs.hpp"

namespace sf::archive {

namespace {

// Buffers libarchive's 10 KiB blocks into larger writes for the compressor.
struct TarContext {
    ByteSink* sink = nullptr;
    std::vector<char> buf;
    std::uint64_t total = 0;
    std::optional<Error> error;

    bool push(const void* d, std::size_t n) {
        const char* p = static_cast<const char*>(d);
        buf.insert(buf.end(), p, p + n);
        total += n;
        if (buf.size() >= (1u << 20)) return drain();
        return true;
    }
    bool drain() {
        if (buf.empty()) return true;
        auto r = sink->write(buf.data(), buf.size());
        buf.clear();
        if (!r) {
            error = r.error();
            return false;
        }
        return true;
    }
};

la_ssize_t write_cb(struct archive*, void* ctx, const void* buf, size_t n) {
    auto* c = static_cast<TarContext*>(ctx);
    return c->push(buf, n) ? static_cast<la_ssize_t>(n) : -1;
}

struct ArchiveDeleter {
    void operator()(struct archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
    void operator()(archive_entry* e) const { archive_entry_free(e); }
};

Unexpected<Error> la_error(struct archive* a, const std::string& what) {
    const char* msg = archive_error_string(a);
    return fail(what + ": " + (msg ? msg : "libarchive error"));
}

Result<void> write_file_data(struct archive* a, const TarEntry& e, std::uint64_t expected) {
    auto in = fs::InputFile::open(e.source);  // swapped for a FIFO since the lstat: refused, not waited on
    if (!in) return unexpected(in.error());
    int fd = in->release();
    std::vector<char> buf(1 << 20);
    std::uint64_t done = 0;
    for (;;) {
        ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            ::close(fd);
            return fail(SourceLoc{e.source.string()}, std::string("read failed: ") + std::strerror(err));
        }
        if (n == 0) break;
        if (done + static_cast<std::uint64_t>(n) > expected) break;
        if (archive_write_data(a, buf.data(), static_cast<size_t>(n)) < 0) {
            ::close(fd);
            return la_error(a, e.name);
        }
        done += static_cast<std::uint64_t>(n);
    }
    ::close(fd);
    if (done != expected)
        return fail(SourceLoc{e.source.string()}, "file changed size while being archived",
                    "make sure nothing writes into the directory being packaged");
    return {};
}

}  // namespace

std::uint64_t tar_size_bound(const std::vector<TarEntry>& entries) {
    std::uint64_t total = 20480;  // end-of-archive blocks and record padding
    for (const auto& e : entries) {
        std::uint64_t size = 0;
        if (e.kind == EntryKind::file) {
            std::error_code ec;
            size = e.source.empty() ? e.content.size() : stdfs::file_size(e.source, ec);
            if (ec) size = 0;
        }
        // header, a pax header block for long names/links, data padded to 512
        total += 512 + 1024 + 2 * (e.name.size() + e.link_target.size()) + (size + 511) / 512 * 512;
    }
    return total;
}

Result<std::uint64_t> write_tar(ByteSink& out, const std::vector<TarEntry>& entries,
                                const TarOptions& opts, const Compression& c) {
    auto comp = compressor(out, c);
    if (!comp) return unexpected(comp.error());
    TarContext ctx;
    ctx.sink = comp->get();
    ctx.buf.reserve((1u << 20) + 16384);

    std::unique_ptr<struct archive, ArchiveDeleter> a(archive_write_new());
    // pax_restricted drops sub-second mtimes; a kept tree needs them (ninja).
    if (opts.times == Times::kept) archive_write_set_format_pax(a.get());
    else archive_write_set_format_pax_restricted(a.get());
    archive_write_set_bytes_per_block(a.get(), 10240);
    if (archive_write_open(a.get(), &ctx, nullptr, write_cb, nullptr) != ARCHIVE_OK)
        return la_error(a.get(), "cannot start tar");

    std::unique_ptr<archive_entry, EntryDeleter> ent(archive_entry_new());
    for (const auto& e : entries) {
        archive_entry_clear(ent.get());
        archive_entry_set_pathname_utf8(ent.get(), e.name.c_str());
        if (opts.times == Times::kept) archive_entry_set_mtime(ent.get(), e.mtime_s, e.mtime_ns);
        else archive_entry_set_mtime(ent.get(), opts.mtime, 0);
        archive_entry_set_uid(ent.get(), 0);
        archive_entry_set_gid(ent.get(), 0);
        std::uint64_t size = 0;
        switch (e.kind) {
            case EntryKind::file: {
                if (!e.source.empty()) {
                    struct stat st {};
                    if (::stat(e.source.c_str(), &st) != 0)
                        return fail(SourceLoc{e.source.string()}, std::string("cannot stat: ") + std::strerror(errno));
                    size = static_cast<std::uint64_t>(st.st_size);
                } else {
                    size = e.content.size();
                }
                archive_entry_set_filetype(ent.get(), AE_IFREG);
                archive_entry_set_perm(ent.get(), e.mode & 07777);
                archive_entry_set_size(ent.get(), static_cast<la_int64_t>(size));
                break;
            }
            case EntryKind::symlink:
                archive_entry_set_filetype(ent.get(), AE_IFLNK);
                archive_entry_set_perm(ent.get(), 0777);
                archive_entry_set_symlink_utf8(ent.get(), e.link_target.c_str());
                archive_entry_set_size(ent.get(), 0);
                break;
            case EntryKind::directory:
                archive_entry_set_filetype(ent.get(), AE_IFDIR);
                archive_entry_set_perm(ent.get(), e.mode & 07777);
                archive_entry_set_size(ent.get(), 0);
                break;
        }
        if (archive_write_header(a.get(), ent.get()) < ARCHIVE_WARN) {
            if (ctx.error) return unexpected(*ctx.error);
            return la_error(a.get(), e.name);
        }
        if (e.kind == EntryKind::file) {
            if (!e.source.empty()) {
                if (auto r = write_file_data(a.get(), e, size); !r) {
                    if (ctx.error) return unexpected(*ctx.error);
                    return unexpected(r.error());
                }
            } else if (!e.content.empty() &&
                       archive_write_data(a.get(), e.content.data(), e.content.size()) < 0) {
                if (ctx.error) return unexpected(*ctx.error);
                return la_error(a.get(), e.name);
            }
        }
    }
    if (archive_write_close(a.get()) != ARCHIVE_OK) {
        if (ctx.error) return unexpected(*ctx.error);
        return la_error(a.get(), "cannot finish tar");
    }
    if (!ctx.drain()) return unexpected(*ctx.error);
    if (auto r = (*comp)->finish(); !r) return unexpected(r.error());
    return ctx.total;
}

void sort_entries(std::vector<TarEntry>& entries) {
    std::sort(entries.begin(), entries.end(),
              [](const TarEntry& a, const TarEntry& b) { return a.name < b.name; });
}

Result<std::vector<TarEntry>> tree_entries(const stdfs::path& root, const std::vector<std::string>& exclude_top) {
    std::vector<TarEntry> out;
    std::error_code ec;
    if (!stdfs::is_directory(root, ec)) return fail(SourceLoc{root.string()}, "not a directory");
    stdfs::recursive_directory_iterator it(root, stdfs::directory_options::none, ec), end;
    if (ec) return fail(SourceLoc{root.string()}, "cannot list directory: " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec) return fail(SourceLoc{root.string()}, "cannot list directory: " + ec.message());
        const stdfs::path& p = it->path();
        std::string rel = p.lexically_relative(root).generic_string();
        if (it.depth() == 0 &&
            std::find(exclude_top.begin(), exclude_top.end(), p.filename().string()) != exclude_top.end()) {
            if (it->is_directory(ec) && !it->is_symlink(ec)) it.disable_recursion_pending();
            continue;
        }
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0)
            return fail(SourceLoc{p.string()}, std::string("cannot stat: ") + std::strerror(errno));
        TarEntry e;
        e.name = rel;
        e.mode = st.st_mode & 07777;
        e.mtime_s = st.st_mtim.tv_sec;
        e.mtime_ns = st.st_mtim.tv_nsec;
        if (S_ISLNK(st.st_mode)) {
            e.kind = EntryKind::symlink;
            e.link_target = stdfs::read_symlink(p, ec).string();
            if (ec) return fail(SourceLoc{p.string()}, "cannot read symlink: " + ec.message());
        } else if (S_ISREG(st.st_mode)) {
            e.kind = EntryKind::file;
            e.source = p;
        } else if (S_ISDIR(st.st_mode)) {
            if (!stdfs::is_empty(p, ec)) continue;  // non-empty dirs are implied by their contents
            e.kind = EntryKind::directory;
        } else {
            return fail(SourceLoc{p.string()}, "cannot archive a special file (device, fifo or socket)",
                        "remove it from the directory being packaged");
        }
        out.push_back(std::move(e));
    }
    sort_entries(out);
    return out;
}

}  // namespace sf::archive
