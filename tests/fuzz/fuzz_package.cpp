// Fuzz target: the package reader, as `install` and `inspect` use it. The
// first byte picks what the rest is:
//   'b' / 'c'  the bytes of a .tar.bz2 / .conda file
//   'B' / 'C'  members (see pack_members) packed here into a valid .tar.bz2 /
//              .conda, so mutations reach paths.json, index.json and the
//              extraction rules instead of dying in the decompressor
//   'p' / 'i'  the text of an info/paths.json / info/index.json
// A package is listed, its metadata read, inspected (and formatted), and
// installed into a fresh prefix with no channels: fetch (hash, extract into
// the cache, verify the tree against paths.json), then link. Errors are fine;
// a crash, a hang, a leak, an uncaught exception or an error that is not one
// line is not.
//
// With SF_FUZZ_PACKAGE_SEEDS=DIR set, the target writes the 'b'/'c' forms of
// the member seeds in DIR (as 'B'/'C' seeds packed here) and exits: the
// checked-in binary seeds come from that.
#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "archive/read.hpp"
#include "env/install.hpp"
#include "package/inspect.hpp"
#include "types/package_record.hpp"

namespace stdfs = std::filesystem;

namespace {

const stdfs::path& work_dir() {
    static const stdfs::path dir = [] {
        auto d = stdfs::temp_directory_path() / ("fuzz_package-" + std::to_string(::getpid()));
        stdfs::create_directories(d);
        return d;
    }();
    return dir;
}

void one_line(const sf::Error& e) {
    if (e.str().find('\n') != std::string::npos) std::abort();
}

// Members, separated by "\n---\n"; each is "<kind> <name>\n<content>", kind
// f (file), l (symlink: content is the target), h (hard link: content is the
// earlier member), d (directory), p (fifo). An unknown kind is a file.
struct Member {
    char kind = 'f';
    std::string name, content;
};

std::vector<Member> parse_members(std::string_view text) {
    std::vector<Member> out;
    while (!text.empty() && out.size() < 64) {
        auto cut = text.find("\n---\n");
        std::string_view part = text.substr(0, cut);
        text = cut == std::string_view::npos ? std::string_view() : text.substr(cut + 5);
        auto nl = part.find('\n');
        std::string_view head = part.substr(0, nl);
        Member m;
        if (head.size() >= 2 && head[1] == ' ') m.kind = head[0], head.remove_prefix(2);
        m.name = std::string(head);
        if (nl != std::string_view::npos) m.content = std::string(part.substr(nl + 1));
        out.push_back(std::move(m));
    }
    return out;
}

la_ssize_t append(struct archive*, void* ud, const void* buf, size_t n) {
    static_cast<std::string*>(ud)->append(static_cast<const char*>(buf), n);
    return static_cast<la_ssize_t>(n);
}

int open_string(struct archive* a, std::string* out) {
    return archive_write_open(a, out, nullptr, append, nullptr);
}

void add_entry(struct archive* a, const std::string& name, char kind, const std::string& content) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_mtime(e, 0, 0);
    archive_entry_set_perm(e, kind == 'd' ? 0755 : 0644);
    switch (kind) {
        case 'd': archive_entry_set_filetype(e, AE_IFDIR); break;
        case 'l':
            archive_entry_set_filetype(e, AE_IFLNK);
            archive_entry_set_symlink(e, content.c_str());
            break;
        case 'h':
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_hardlink(e, content.c_str());
            break;
        case 'p': archive_entry_set_filetype(e, AE_IFIFO); break;
        default:
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_size(e, static_cast<la_int64_t>(content.size()));
    }
    archive_write_header(a, e);
    if (kind != 'd' && kind != 'l' && kind != 'h' && kind != 'p' && !content.empty())
        archive_write_data(a, content.data(), content.size());
    archive_entry_free(e);
}

// A tar of `members`, filtered by bzip2 or zstd.
std::string tarball(const std::vector<Member>& members, bool zstd) {
    std::string out;
    struct archive* a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    if (zstd) {
        archive_write_add_filter_zstd(a);
        archive_write_set_filter_option(a, "zstd", "compression-level", "1");
    } else {
        archive_write_add_filter_bzip2(a);
        archive_write_set_filter_option(a, "bzip2", "compression-level", "1");
    }
    archive_write_set_bytes_in_last_block(a, 1);
    open_string(a, &out);
    for (const auto& m : members) add_entry(a, m.name, m.kind, m.content);
    archive_write_close(a);
    archive_write_free(a);
    return out;
}

// A .conda: a STORED zip of metadata.json, info-<stem>.tar.zst (the info/
// members) and pkg-<stem>.tar.zst (the others). A member named "metadata.json"
// replaces the generated one.
std::string conda(const std::vector<Member>& members, const std::string& stem) {
    std::vector<Member> info, pkg;
    std::string metadata = R"({"conda_pkg_format_version": 2})";
    for (const auto& m : members) {
        if (m.name == "metadata.json") metadata = m.content;
        else (m.name.rfind("info/", 0) == 0 ? info : pkg).push_back(m);
    }
    std::string out;
    struct archive* a = archive_write_new();
    archive_write_set_format_zip(a);
    archive_write_zip_set_compression_store(a);
    open_string(a, &out);
    add_entry(a, "metadata.json", 'f', metadata);
    add_entry(a, "info-" + stem + ".tar.zst", 'f', tarball(info, true));
    add_entry(a, "pkg-" + stem + ".tar.zst", 'f', tarball(pkg, true));
    archive_write_close(a);
    archive_write_free(a);
    return out;
}

const std::string kStem = "fuzz-1.0-0";

void drive_package(const std::string& bytes, bool is_conda) {
    const stdfs::path dir = work_dir() / "run";
    std::error_code ec;
    stdfs::remove_all(dir, ec);
    stdfs::create_directories(dir);
    const stdfs::path pkg = dir / (kStem + (is_conda ? ".conda" : ".tar.bz2"));
    std::ofstream(pkg, std::ios::binary) << bytes;

    if (auto r = sf::archive::list_package(pkg); !r) one_line(r.error());
    if (auto r = sf::archive::read_package_metadata(pkg); !r) one_line(r.error());
    if (auto r = sf::package::inspect_package(pkg)) sf::package::format_inspection(*r);
    else one_line(r.error());
    sf::env::InstallOptions opts;
    opts.pkgs_dir = dir / "pkgs";
    opts.platform = *sf::types::Platform::parse("linux-64");
    if (auto r = sf::env::install(dir / "prefix", {pkg.string()}, opts); !r) one_line(r.error());
    stdfs::remove_all(dir, ec);
}

void write_seeds(const stdfs::path& dir) {
    for (const auto& e : stdfs::directory_iterator(dir)) {
        std::ifstream in(e.path(), std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (text.empty() || (text[0] != 'B' && text[0] != 'C')) continue;
        auto members = parse_members(std::string_view(text).substr(1));
        bool is_conda = text[0] == 'C';
        std::string bytes = is_conda ? conda(members, kStem) : tarball(members, false);
        std::string name = e.path().filename().string() + ".bin";
        std::ofstream(dir / name, std::ios::binary) << (is_conda ? 'c' : 'b') << bytes;
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* seeds = std::getenv("SF_FUZZ_PACKAGE_SEEDS")) {
        write_seeds(seeds);
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const char mode = static_cast<char>(data[0]);
    std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    switch (mode) {
        case 'b': drive_package(rest, false); break;
        case 'c': drive_package(rest, true); break;
        case 'B': drive_package(tarball(parse_members(rest), false), false); break;
        case 'C': drive_package(conda(parse_members(rest), kStem), true); break;
        case 'p':
            if (auto r = sf::types::PathsJson::parse(rest, "paths.json"); !r) one_line(r.error());
            break;
        case 'i': {
            auto j = nlohmann::json::parse(rest, nullptr, false);
            if (j.is_discarded()) break;
            if (auto r = sf::types::PackageRecord::from_json(j, "index.json"); !r) one_line(r.error());
            break;
        }
        default: break;
    }
    return 0;
}
