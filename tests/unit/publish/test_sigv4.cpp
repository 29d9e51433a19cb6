// SigV4 against AWS's published examples: the S3 header-based examples of
// "Signature Calculations for the Authorization Header: Transferring Payload
// in a Single Chunk" (GET object, PUT object, GET bucket lifecycle, list
// objects) and the signing test suite's get-vanilla case (service "service",
// whose path is encoded twice).
#include <catch2/catch.hpp>

#include "publish/sigv4.hpp"
#include "util/hash.hpp"

using namespace sf::publish;

namespace {

const AwsCredentials kS3Example{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
const std::string kEmpty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

SigV4Request s3_get(std::string path, std::vector<std::pair<std::string, std::string>> query) {
    SigV4Request r;
    r.method = "GET";
    r.path = std::move(path);
    r.query = std::move(query);
    r.headers = {{"Host", "examplebucket.s3.amazonaws.com"}, {"x-amz-date", "20130524T000000Z"},
                 {"x-amz-content-sha256", kEmpty}};
    r.payload_sha256 = kEmpty;
    r.amz_date = "20130524T000000Z";
    r.region = "us-east-1";
    r.service = "s3";
    return r;
}

}  // namespace

TEST_CASE("sigv4: AWS's S3 GET object example", "[sigv4]") {
    auto r = s3_get("/test.txt", {});
    r.headers.push_back({"Range", "bytes=0-9"});
    const SigV4 s = sign_v4(r, kS3Example);
    CHECK(s.canonical_request ==
          "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\nx-amz-content-sha256:" + kEmpty +
              "\nx-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n" + kEmpty);
    CHECK(s.string_to_sign ==
          "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
          "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
    CHECK(s.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    CHECK(s.authorization ==
          "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
          "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
          "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST_CASE("sigv4: AWS's S3 PUT object example", "[sigv4]") {
    SigV4Request r;
    r.method = "PUT";
    r.path = "/test$file.text";
    const std::string body_sha = sf::hash::sha256("Welcome to Amazon S3.");
    CHECK(body_sha == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
    r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                 {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                 {"x-amz-date", "20130524T000000Z"},
                 {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                 {"x-amz-content-sha256", body_sha}};
    r.payload_sha256 = body_sha;
    r.amz_date = "20130524T000000Z";
    r.region = "us-east-1";
    r.service = "s3";
    const SigV4 s = sign_v4(r, kS3Example);
    CHECK(s.canonical_request.substr(0, 21) == "PUT\n/test%24file.text");
    CHECK(s.signature == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST_CASE("sigv4: AWS's S3 GET bucket lifecycle and list objects examples", "[sigv4]") {
    CHECK(sign_v4(s3_get("/", {{"lifecycle", ""}}), kS3Example).signature ==
          "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
    CHECK(sign_v4(s3_get("/", {{"prefix", "J"}, {"max-keys", "2"}}), kS3Example).signature ==
          "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST_CASE("sigv4: the signing test suite's get-vanilla", "[sigv4]") {
    SigV4Request r;
    r.method = "GET";
    r.path = "/";
    r.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
    r.payload_sha256 = kEmpty;
    r.amz_date = "20150830T123600Z";
    r.region = "us-east-1";
    r.service = "service";
    const SigV4 s = sign_v4(r, {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""});
    CHECK(s.canonical_request ==
          "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" + kEmpty);
    CHECK(s.signature == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST_CASE("sigv4: encoding, header values and the date", "[sigv4]") {
    CHECK(uri_encode("/a b/c+d~e", true) == "/a%20b/c%2Bd~e");
    CHECK(uri_encode("a/b", false) == "a%2Fb");
    CHECK(amz_date(1369353600) == "20130524T000000Z");
    auto r = s3_get("/x", {});
    r.headers.push_back({"X-Spaced", "  a   b  "});
    CHECK(sign_v4(r, kS3Example).canonical_request.find("\nx-spaced:a b\n") != std::string::npos);
    // Path segments a non-S3 service gets encoded twice.
    r.service = "service";
    CHECK(sign_v4(r, kS3Example).canonical_request.rfind("GET\n/x\n", 0) == 0);
    r.path = "/a b";
    CHECK(sign_v4(r, kS3Example).canonical_request.rfind("GET\n/a%2520b\n", 0) == 0);
}
