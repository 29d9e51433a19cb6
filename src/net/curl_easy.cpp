#include "net/curl_easy.hpp"

#include <mutex>

namespace sf::net::detail {

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool transient(CURLcode rc, long status) {
    switch (rc) {
        case CURLE_OK: return status >= 500 && status <= 599;
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_PARTIAL_FILE:
        case CURLE_GOT_NOTHING:
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR: return true;
        default: return false;
    }
}

}  // namespace sf::net::detail
