#pragma once
// What an S3 request needs from the user's AWS setup, read as the AWS CLI
// reads it: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN, else
// the profile AWS_PROFILE names (default: "default") in
// AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials; the region from
// AWS_REGION, AWS_DEFAULT_REGION, the profile in AWS_CONFIG_FILE or
// ~/.aws/config, else us-east-1; the endpoint from AWS_ENDPOINT_URL_S3 or
// AWS_ENDPOINT_URL (then path-style: ENDPOINT/BUCKET/KEY), else
// https://BUCKET.s3.REGION.amazonaws.com/KEY.
#include <map>
#include <string>

#include "core/error.hpp"
#include "publish/sigv4.hpp"

namespace sf::publish {

using EnvVars = std::map<std::string, std::string>;

struct AwsSetup {
    AwsCredentials credentials;
    std::string region;
    std::string endpoint;  // "" for AWS itself
};

Result<AwsSetup> aws_setup(const EnvVars& env);

// The [section] -> key -> value of an AWS ini file; a missing file is empty.
Result<std::map<std::string, std::map<std::string, std::string>>> read_aws_ini(const std::string& path);

}  // namespace sf::publish
