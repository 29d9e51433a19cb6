#include "util/hash.hpp"

#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

namespace sf::hash {
namespace {

const EVP_MD* md_for(Algo a) {
    switch (a) {
        case Algo::md5: return EVP_md5();
        case Algo::sha1: return EVP_sha1();
        case Algo::sha256: return EVP_sha256();
    }
    return EVP_sha256();
}

struct Ctx {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> p{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
    explicit Ctx(Algo a) { EVP_DigestInit_ex(p.get(), md_for(a), nullptr); }
    void update(const void* d, size_t n) { EVP_DigestUpdate(p.get(), d, n); }
    std::string hex() {
        unsigned char buf[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        EVP_DigestFinal_ex(p.get(), buf, &n);
        static const char* digits = "0123456789abcdef";
        std::string out(n * 2, '0');
        for (unsigned i = 0; i < n; ++i) {
            out[2 * i] = digits[buf[i] >> 4];
            out[2 * i + 1] = digits[buf[i] & 0xF];
        }
        return out;
    }
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
    std::ifstream in(p, std::ios::binary);
    if (!in) return fail(SourceLoc{p.string()}, "cannot open file for hashing");
    Ctx m(Algo::md5), s(Algo::sha256);
    std::vector<char> buf(1 << 20);
    FileDigests d;
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        auto n = static_cast<size_t>(in.gcount());
        if (n == 0) break;
        m.update(buf.data(), n);
        s.update(buf.data(), n);
        d.size += n;
    }
    if (in.bad()) return fail(SourceLoc{p.string()}, "read error while hashing");
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
