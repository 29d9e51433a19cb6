#pragma once
// Digests through OpenSSL, as lowercase hex.
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace sf::hash {

enum class Algo { md5, sha1, sha256 };

std::string hex(Algo algo, std::string_view data);
inline std::string sha1(std::string_view d) { return hex(Algo::sha1, d); }
inline std::string sha256(std::string_view d) { return hex(Algo::sha256, d); }
inline std::string md5(std::string_view d) { return hex(Algo::md5, d); }

// An incremental digest, for data that does not sit in one buffer.
class Hasher {
public:
    explicit Hasher(Algo algo);
    ~Hasher();
    Hasher(const Hasher&) = delete;
    Hasher& operator=(const Hasher&) = delete;
    void update(std::string_view data);
    std::string hex();  // once, at the end

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Streams the file; one read pass computes every digest asked for.
struct FileDigests {
    std::string md5, sha256;
    std::uintmax_t size = 0;
};
Result<FileDigests> file_digests(const std::filesystem::path& p);
// The same from an open descriptor (e.g. one fs::Dir opened without
// following a symlink), read from where it stands; `name` is for errors.
Result<FileDigests> fd_digests(int fd, const std::filesystem::path& name);
Result<std::string> file_sha256(const std::filesystem::path& p);

}  // namespace sf::hash
