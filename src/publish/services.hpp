#pragma once
// Uploads to package services that index what they take themselves
// (internal to publish/): anaconda.org as anaconda-client speaks to it
// (anaconda.cpp) and prefix.dev as rattler_upload does (prefix_dev.cpp).
// Both check every file first (what the service already has under its
// name), then send; neither writes a repodata.json.
#include <string>

#include "publish/target.hpp"
#include "publish/upload.hpp"
#include "publish/upload_plan.hpp"

namespace sf::publish::detail {

// Where the service's API is and who calls it: `base` without a trailing
// slash, `token` never printed ("" only for a dry run).
struct Service {
    std::string base, token;
};

Result<UploadReport> upload_to_anaconda(const Target& target, const Plan& plan, const UploadOptions& opts,
                                        const Service& api);
Result<UploadReport> upload_to_prefix(const Target& target, const Plan& plan, const UploadOptions& opts,
                                      const Service& api);

// A service's refusal: "HTTP 409 (conflict): <its own words>", masked.
std::string service_answer(long status, const std::string& body, const std::string& token);

}  // namespace sf::publish::detail
