#include "publish/upload_plan.hpp"

#include <set>

#include "binary/artifact.hpp"
#include "channel/index.hpp"
#include "publish/pip_index.hpp"
#include "util/hash.hpp"

namespace sf::publish::detail {

namespace stdfs = std::filesystem;

namespace {

Result<Item> conda_item(const stdfs::path& f) {
    auto record = channel::package_record(f);
    if (!record) return unexpected(record.error());
    Item it{f, record->value("subdir", "") + "/" + f.filename().string(), record->value("sha256", ""),
            record->value("md5", ""), record->value("size", std::uint64_t{0}), *record, {}};
    return it;
}

Result<Item> wheel_item(const stdfs::path& f) {
    auto meta = wheel_metadata(f);
    if (!meta) return unexpected(meta.error());
    auto d = hash::file_digests(f);
    if (!d) return unexpected(d.error());
    return Item{f, f.filename().string(), d->sha256, d->md5, d->size, {}, *meta};
}

}  // namespace

Result<Plan> plan_upload(const std::vector<stdfs::path>& files) {
    Plan plan;
    std::set<std::string> kinds, keys;
    for (const auto& f : files) {
        auto kind = binary::artifact_kind(f.filename().string());
        if (!kind || *kind == binary::ArtifactKind::libtorch_zip)
            return fail(SourceLoc{f.string()}, "is neither a conda package (.conda, .tar.bz2) nor a wheel (.whl)",
                        "upload conda packages or wheels");
        const bool wheel = *kind == binary::ArtifactKind::wheel;
        kinds.insert(wheel ? "wheel" : "conda");
        if (kinds.size() > 1)
            return fail(SourceLoc{f.string()}, "conda packages and wheels in one upload",
                        "upload them to separate targets: a conda channel and a wheel folder");
        plan.kind = wheel ? Plan::Kind::wheels : Plan::Kind::conda;
        auto item = wheel ? wheel_item(f) : conda_item(f);
        if (!item) return unexpected(item.error());
        if (!keys.insert(item->key).second)
            return fail(SourceLoc{f.string()}, "given twice (another file of that name goes to " + item->key + ")");
        plan.items.push_back(std::move(*item));
    }
    if (plan.items.empty()) return fail("no files to upload", "name conda packages or wheels after --to TARGET");
    return plan;
}

}  // namespace sf::publish::detail
