#include "util/hash.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/fs.hpp"

// OpenSSL's one-algorithm contexts, not EVP: EVP's first use starts the
// provider machinery (about 1.5 ms per process), and a render hashes only a
// few hundred bytes. These functions are deprecated in OpenSSL 3 but kept.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>
#include <openssl/sha.h>

#include <memory>
#include <variant>
#include <vector>

namespace sf::hash {
namespace {

class Ctx {
public:
    explicit Ctx(Algo a) {
        switch (a) {
            case Algo::md5: MD5_Init(&c_.emplace<MD5_CTX>()); break;
            case Algo::sha1: SHA1_Init(&c_.emplace<SHA_CTX>()); break;
            case Algo::sha256: SHA256_Init(&c_.emplace<SHA256_CTX>()); break;
        }
    }
    void update(const void* d, size_t n) {
        if (auto* m = std::get_if<MD5_CTX>(&c_)) MD5_Update(m, d, n);
        else if (auto* s1 = std::get_if<SHA_CTX>(&c_)) SHA1_Update(s1, d, n);
        else SHA256_Update(&std::get<SHA256_CTX>(c_), d, n);
    }
    std::string hex() {
        unsigned char buf[SHA256_DIGEST_LENGTH];
        unsigned n = 0;
        if (auto* m = std::get_if<MD5_CTX>(&c_)) MD5_Final(buf, m), n = MD5_DIGEST_LENGTH;
        else if (auto* s1 = std::get_if<SHA_CTX>(&c_)) SHA1_Final(buf, s1), n = SHA_DIGEST_LENGTH;
        else SHA256_Final(buf, &std::get<SHA256_CTX>(c_)), n = SHA256_DIGEST_LENGTH;
        static const char* digits = "0123456789abcdef";
        std::string out(n * 2, '0');
        for (unsigned i = 0; i < n; ++i) {
            out[2 * i] = digits[buf[i] >> 4];
            out[2 * i + 1] = digits[buf[i] & 0xF];
        }
        return out;
    }

private:
    std::variant<MD5_CTX, SHA_CTX, SHA256_CTX> c_;
};

}  // namespace

struct Hasher::Impl : Ctx {
    using Ctx::Ctx;
};
Hasher::Hasher(Algo algo) : impl_(std::make_unique<Impl>(algo)) {}
Hasher::~Hasher() = default;
void Hasher::update(std::string_view data) { impl_->update(data.data(), data.size()); }
std::string Hasher::hex() { return impl_->hex(); }

std::string hex(Algo algo, std::string_view data) {
    Ctx c(algo);
    c.update(data.data(), data.size());
    return c.hex();
}

Result<FileDigests> file_digests(const std::filesystem::path& p) {
    auto in = fs::InputFile::open(p);  // never waits on a FIFO
    if (!in) return unexpected(in.error());
    return fd_digests(in->fd(), p);
}

Result<FileDigests> fd_digests(int fd, const std::filesystem::path& p) {
    Ctx m(Algo::md5), s(Algo::sha256);
    std::vector<char> buf(1 << 20);
    FileDigests d;
    while (true) {
        ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail(SourceLoc{p.string()}, std::string("read error while hashing: ") + std::strerror(errno));
        if (n == 0) break;
        m.update(buf.data(), static_cast<size_t>(n));
        s.update(buf.data(), static_cast<size_t>(n));
        d.size += static_cast<std::uint64_t>(n);
    }
    d.md5 = m.hex();
    d.sha256 = s.hex();
    return d;
}

Result<std::string> file_sha256(const std::filesystem::path& p) {
    auto d = file_digests(p);
    if (!d) return unexpected(d.error());
    return d->sha256;
}

}  // namespace sf::hash
