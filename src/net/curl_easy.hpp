#pragma once
// What net's two libcurl users (http.cpp's GETs, send.cpp's uploads) share:
// the once-per-process init, the easy handle's lifetime, and which failures
// are worth another try. Internal to net/; nothing outside includes it.
#include <curl/curl.h>

namespace sf::net::detail {

void global_init();

struct Easy {
    CURL* h = (global_init(), curl_easy_init());
    curl_slist* headers = nullptr;
    Easy() = default;
    Easy(const Easy&) = delete;
    Easy& operator=(const Easy&) = delete;
    ~Easy() {
        curl_slist_free_all(headers);
        if (h) curl_easy_cleanup(h);
    }
};

// Worth another try: a timeout, a connection cut mid-answer, a 5xx.
bool transient(CURLcode rc, long status);

}  // namespace sf::net::detail
