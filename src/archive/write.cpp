// Output files and the streaming compressors (zstd, bzip2).
#include "archive/write.hpp"

#include <bzlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/dir_handle.hpp"
#include "util/fs.hpp"

namespace sf::archive {

namespace {

constexpr std::size_t kFileBuffer = 1 << 20;

Unexpected<Error> io_error(const stdfs::path& p, const std::string& what, int err = errno) {
    return fail_runtime(SourceLoc{p.string()}, what + ": " + std::strerror(err), fs::write_hint(err));
}

}  // namespace

// ---- OutputFile -----------------------------------------------------------

Result<std::unique_ptr<OutputFile>> OutputFile::create(const stdfs::path& final_path) {
    std::unique_ptr<OutputFile> f(new OutputFile());
    f->final_ = final_path;
    // A name only splitforge makes, so the sweep of a killed writer's file
    // can never take anyone else's.
    f->tmp_ = final_path.parent_path() / fs::temp_name(final_path.filename().string());
    f->fd_ = ::open(f->tmp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (f->fd_ < 0) return io_error(f->tmp_, "cannot create output file");
    f->buf_.reserve(kFileBuffer);
    return f;
}

OutputFile::~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

Result<void> OutputFile::flush() {
    std::size_t off = 0;
    while (off < buf_.size()) {
        ssize_t n = ::write(fd_, buf_.data() + off, buf_.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return io_error(final_, "write failed");
        }
        off += static_cast<std::size_t>(n);
    }
    buf_.clear();
    return {};
}

Result<void> OutputFile::write(const void* data, std::size_t size) {
    const char* p = static_cast<const char*>(data);
    pos_ += size;
    if (buf_.size() + size > kFileBuffer) {
        if (auto r = flush(); !r) return r;
        if (size >= kFileBuffer) {  // large writes bypass the buffer
            std::size_t off = 0;
            while (off < size) {
                ssize_t n = ::write(fd_, p + off, size - off);
                if (n < 0) {
                    if (errno == EINTR) continue;
                    return io_error(final_, "write failed");
                }
                off += static_cast<std::size_t>(n);
            }
            return {};
        }
    }
    buf_.insert(buf_.end(), p, p + size);
    return {};
}

Result<void> OutputFile::finish() { return flush(); }

Result<void> OutputFile::patch(std::uint64_t offset, const void* data, std::size_t size) {
    if (auto r = flush(); !r) return r;
    const char* p = static_cast<const char*>(data);
    std::size_t done = 0;
    while (done < size) {
        ssize_t n = ::pwrite(fd_, p + done, size - done, static_cast<off_t>(offset + done));
        if (n < 0) {
            if (errno == EINTR) continue;
            return io_error(final_, "write failed");
        }
        done += static_cast<std::size_t>(n);
    }
    return {};
}

Result<void> OutputFile::commit() {
    if (auto r = flush(); !r) return r;
    if (::fsync(fd_) != 0) return io_error(final_, "fsync failed");
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return io_error(final_, "write failed");
    if (::rename(tmp_.c_str(), final_.c_str()) != 0) return io_error(final_, "rename failed");
    committed_ = true;
    return {};
}

// ---- compressors ------------------------------------------------------------

namespace {

class ZstdSink : public ByteSink {
public:
    ZstdSink(ByteSink& out, ZSTD_CCtx* cctx) : out_(out), cctx_(cctx), buf_(ZSTD_CStreamOutSize()) {}
    ~ZstdSink() override { ZSTD_freeCCtx(cctx_); }

    Result<void> write(const void* data, std::size_t size) override {
        ZSTD_inBuffer in{data, size, 0};
        while (in.pos < in.size) {
            if (auto r = step(in, ZSTD_e_continue); !r) return unexpected(r.error());
        }
        return {};
    }

    Result<void> finish() override {
        ZSTD_inBuffer in{nullptr, 0, 0};
        for (;;) {
            auto r = step(in, ZSTD_e_end);
            if (!r) return unexpected(r.error());
            if (*r == 0) break;
        }
        return out_.finish();
    }

private:
    Result<std::size_t> step(ZSTD_inBuffer& in, ZSTD_EndDirective mode) {
        ZSTD_outBuffer o{buf_.data(), buf_.size(), 0};
        std::size_t left = ZSTD_compressStream2(cctx_, &o, &in, mode);
        if (ZSTD_isError(left)) return fail(std::string("zstd: ") + ZSTD_getErrorName(left));
        if (o.pos > 0) {
            if (auto r = out_.write(buf_.data(), o.pos); !r) return unexpected(r.error());
        }
        return left;
    }

    ByteSink& out_;
    ZSTD_CCtx* cctx_;
    std::vector<char> buf_;
};

class Bzip2Sink : public ByteSink {
public:
    Bzip2Sink(ByteSink& out) : out_(out), buf_(1 << 18) {}
    ~Bzip2Sink() override {
        if (started_) BZ2_bzCompressEnd(&strm_);
    }
    Result<void> init(int level) {
        std::memset(&strm_, 0, sizeof strm_);
        if (BZ2_bzCompressInit(&strm_, level, 0, 30) != BZ_OK) return fail("bzip2: cannot initialise compressor");
        started_ = true;
        return {};
    }
    Result<void> write(const void* data, std::size_t size) override {
        // bz_stream counts in unsigned int: feed at most 1 GiB at a time.
        const char* p = static_cast<const char*>(data);
        while (size > 0) {
            unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(size, 1u << 30));
            strm_.next_in = const_cast<char*>(p);
            strm_.avail_in = chunk;
            while (strm_.avail_in > 0) {
                if (auto r = step(BZ_RUN); !r) return unexpected(r.error());
            }
            p += chunk;
            size -= chunk;
        }
        return {};
    }
    Result<void> finish() override {
        strm_.next_in = nullptr;
        strm_.avail_in = 0;
        for (;;) {
            auto r = step(BZ_FINISH);
            if (!r) return unexpected(r.error());
            if (*r == BZ_STREAM_END) break;
        }
        return out_.finish();
    }

private:
    Result<int> step(int action) {
        strm_.next_out = buf_.data();
        strm_.avail_out = static_cast<unsigned>(buf_.size());
        int rc = BZ2_bzCompress(&strm_, action);
        if (rc < 0) return fail("bzip2: compression failed (code " + std::to_string(rc) + ")");
        std::size_t n = buf_.size() - strm_.avail_out;
        if (n > 0) {
            if (auto r = out_.write(buf_.data(), n); !r) return unexpected(r.error());
        }
        return rc;
    }
    ByteSink& out_;
    bz_stream strm_{};
    std::vector<char> buf_;
    bool started_ = false;
};

class PassSink : public ByteSink {
public:
    explicit PassSink(ByteSink& out) : out_(out) {}
    Result<void> write(const void* d, std::size_t n) override { return out_.write(d, n); }
    Result<void> finish() override { return out_.finish(); }

private:
    ByteSink& out_;
};

}  // namespace

std::uint64_t compress_bound(std::uint64_t n, const Compression& c) {
    switch (c.codec) {
        case Codec::zstd: return ZSTD_compressBound(static_cast<std::size_t>(n)) + (1u << 16);
        case Codec::bzip2: return n + n / 100 + 4096;
        case Codec::none: return n;
    }
    return n + n / 100 + 4096;
}

Result<std::unique_ptr<ByteSink>> compressor(ByteSink& out, const Compression& c) {
    switch (c.codec) {
        case Codec::none:
            return std::unique_ptr<ByteSink>(new PassSink(out));
        case Codec::bzip2: {
            if (c.level < 1 || c.level > 9)
                return fail("bzip2 level " + std::to_string(c.level) + " is out of range", "use 1..9");
            auto s = std::make_unique<Bzip2Sink>(out);
            if (auto r = s->init(c.level); !r) return unexpected(r.error());
            return std::unique_ptr<ByteSink>(std::move(s));
        }
        case Codec::zstd: {
            if (c.level < 1 || c.level > ZSTD_maxCLevel())
                return fail("zstd level " + std::to_string(c.level) + " is out of range",
                            "use 1.." + std::to_string(ZSTD_maxCLevel()));
            ZSTD_CCtx* cctx = ZSTD_createCCtx();
            if (!cctx) return fail("zstd: cannot create a compression context");
            auto s = std::make_unique<ZstdSink>(out, cctx);
            ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, c.level);
            ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
            // nbWorkers >= 1 always: zstd's output then does not depend on the
            // number of workers, so packages are byte-identical across -T values.
            std::size_t rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, std::max(1, c.threads));
            if (ZSTD_isError(rc))
                return fail("zstd: multi-threading unavailable in this libzstd", "use --threads 1");
            return std::unique_ptr<ByteSink>(std::move(s));
        }
    }
    return fail("unknown codec");
}

}  // namespace sf::archive
