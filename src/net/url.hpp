#pragma once
// Secrets in URLs, kept out of everything splitforge prints or names a file
// by: the password (and user) of `scheme://user:pass@host`, and the token of
// a path segment `/t/<token>/` (anaconda.org's and conda's token form).
#include <string>
#include <string_view>

namespace sf::net {

// `url` with its credentials masked: `https://<USER>:<PASSWORD>@host/...`
// and `/t/<TOKEN>/`.
std::string mask(std::string_view url);
// Every URL inside free text (an error message, curl's own wording) masked.
std::string mask_text(std::string_view text);
// Does the URL carry a secret mask() would hide?
bool has_secret(std::string_view url);

// `scheme://...`: the scheme, lowercased; "" when there is none.
std::string scheme_of(std::string_view url);

}  // namespace sf::net
