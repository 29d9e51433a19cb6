#pragma once
// An upload to a Store (internal to publish/): every file's key checked
// (HEAD), then the files sent, then the conda index (each touched subdir's
// repodata.json fetched, merged with the new records and sent last; an empty
// noarch/repodata.json when there is none).
#include "publish/store.hpp"
#include "publish/upload.hpp"
#include "publish/upload_plan.hpp"

namespace sf::publish::detail {

Result<UploadReport> upload_to_store(Store& store, const Plan& plan, const UploadOptions& opts);

// Each subdir's repodata.json in `store` with `records` (subdir -> file ->
// record) merged in; returns the keys written, noarch's first.
Result<std::vector<std::string>> index_remote(Store& store,
                                              const std::map<std::string, std::map<std::string, nlohmann::json>>& records);

}  // namespace sf::publish::detail
