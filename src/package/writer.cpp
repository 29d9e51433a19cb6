#include "package/writer.hpp"

#include "archive/write.hpp"
#include "core/rewrap.hpp"
#include "package/info.hpp"
#include "types/identifiers.hpp"
#include "util/fs.hpp"
#include "util/timestamp.hpp"

namespace sf::package {

namespace stdfs = std::filesystem;
using archive::ByteSink;
using archive::Codec;
using archive::Compression;
using archive::TarEntry;

Result<Format> parse_format(const std::string& s) {
    if (s == "conda" || s == ".conda") return Format::conda;
    if (s == "tar.bz2" || s == ".tar.bz2") return Format::tar_bz2;
    if (s == "both") return Format::both;
    return fail("unknown package format '" + s + "'", "use conda, tar.bz2 or both");
}

namespace {

Result<stdfs::path> write_conda(const stdfs::path& out_dir, const std::string& stem,
                                const std::vector<TarEntry>& payload, const std::vector<TarEntry>& info,
                                std::int64_t mtime, const WriteOptions& opts) {
    auto file = archive::OutputFile::create(out_dir / (stem + ".conda"));
    if (!file) return unexpected(file.error());
    const Compression zstd{Codec::zstd, opts.zstd_level, opts.threads};
    const archive::TarOptions topts{mtime};
    archive::ZipWriter zip(**file, mtime);
    if (auto r = zip.add("metadata.json", R"({"conda_pkg_format_version": 2})"); !r) return unexpected(r.error());
    auto member = [&](const std::string& name, const std::vector<TarEntry>& entries) -> Result<void> {
        const std::uint64_t bound = archive::compress_bound(archive::tar_size_bound(entries), zstd);
        return zip.add_streamed(name, bound, [&](ByteSink& sink) -> Result<void> {
            auto n = archive::write_tar(sink, entries, topts, zstd);
            if (!n) return unexpected(n.error());
            return {};
        });
    };
    if (auto r = member("pkg-" + stem + ".tar.zst", payload); !r) return unexpected(r.error());
    if (auto r = member("info-" + stem + ".tar.zst", info); !r) return unexpected(r.error());
    if (auto r = zip.finish(); !r) return unexpected(r.error());
    if (auto r = (*file)->commit(); !r) return unexpected(r.error());
    return (*file)->final_path();
}

Result<stdfs::path> write_tar_bz2(const stdfs::path& out_dir, const std::string& stem,
                                  const std::vector<TarEntry>& payload, const std::vector<TarEntry>& info,
                                  std::int64_t mtime, const WriteOptions& opts) {
    auto file = archive::OutputFile::create(out_dir / (stem + ".tar.bz2"));
    if (!file) return unexpected(file.error());
    std::vector<TarEntry> all = info;  // info/ first
    all.insert(all.end(), payload.begin(), payload.end());
    auto n = archive::write_tar(**file, all, {mtime}, Compression{Codec::bzip2, opts.bzip2_level, 1});
    if (!n) return unexpected(n.error());
    if (auto r = (*file)->commit(); !r) return unexpected(r.error());
    return (*file)->final_path();
}

}  // namespace

Result<std::vector<stdfs::path>> write_package(const PackageInput& in, const stdfs::path& out_dir,
                                               const WriteOptions& opts) {
    if (auto r = validate(in.meta); !r) return unexpected(r.error());
    std::error_code ec;
    stdfs::create_directories(out_dir, ec);
    if (!stdfs::is_directory(out_dir)) return fail_runtime(SourceLoc{out_dir.string()}, "cannot create output directory");
    fs::sweep_stale_temp_files(out_dir);  // what a killed writer left

    auto payload = payload_entries(in.dir);
    if (!payload) return unexpected(payload.error());
    auto records = path_entries(in.dir, *payload, in.prefix_files);
    if (!records) return unexpected(records.error());
    mark_no_link(*records, in.meta.no_link);
    const std::int64_t ts = resolved_timestamp(in.meta);
    auto info = info_entries(in.meta, *records, ts);
    if (!info) return unexpected(info.error());
    const std::int64_t mtime = opts.mtime ? *opts.mtime : timestamp::source_date_epoch().value_or(ts / 1000);

    std::vector<stdfs::path> written;
    const std::string stem = in.meta.stem();
    if (opts.format != Format::tar_bz2) {
        auto p = write_conda(out_dir, stem, *payload, *info, mtime, opts);
        if (!p) return unexpected(p.error());
        written.push_back(*p);
    }
    if (opts.format != Format::conda) {
        auto p = write_tar_bz2(out_dir, stem, *payload, *info, mtime, opts);
        if (!p) return unexpected(p.error());
        written.push_back(*p);
    }
    return written;
}

namespace {

// The errors of the linkage checks, as one line: each file and library.
std::optional<Error> linkage_failure(const LinkageReport& r) {
    std::vector<const LinkMessage*> errors;
    for (const auto& m : r.messages)
        if (m.severity == LinkSeverity::error) errors.push_back(&m);
    if (errors.empty()) return std::nullopt;
    const std::size_t shown = std::min<std::size_t>(errors.size(), 4);
    std::string text = errors[0]->text;
    for (std::size_t i = 1; i < shown; ++i) text += "; " + errors[i]->text;
    if (errors.size() > shown) text += "; and " + std::to_string(errors.size() - shown) + " more";
    return Error{SourceLoc{}, text, errors[0]->hint, ErrorKind::runtime};
}

}  // namespace

Result<MadePackage> make_package(const stdfs::path& dir, const PackageMeta& meta, const stdfs::path& out_dir,
                                 const MakeOptions& opts) {
    if (auto r = validate(meta); !r) return unexpected(r.error());
    MadePackage made;
    PackageInput in{dir, meta, {}};
    if (opts.postprocess) {
        // The prefix is recorded as a placeholder in files and text scripts.
        if (auto ok = types::check_prefix(opts.postprocess->prefix); !opts.postprocess->prefix.empty() && !ok)
            return rewrap(ok.error(), "the build prefix: ");
        auto pp = postprocess(dir, *opts.postprocess);
        if (!pp) return rewrap(pp.error(), "post-processing: ");
        in.prefix_files = std::move(pp->prefix_files);
        made.warnings = std::move(pp->warnings);
        made.linkage = std::move(pp->linkage);
        if (auto e = linkage_failure(made.linkage)) return Unexpected<Error>{*e};
    }
    auto files = write_package(in, out_dir, opts.write);
    if (!files) return unexpected(files.error());
    made.files = std::move(*files);
    return made;
}

}  // namespace sf::package
