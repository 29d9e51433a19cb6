#include "core/diagnostics.hpp"

namespace sf {

void Diagnostics::warn(Error w, const std::string& once_key) {
    if (seen_.insert(once_key).second) warnings_.push_back(std::move(w));
}

}  // namespace sf
