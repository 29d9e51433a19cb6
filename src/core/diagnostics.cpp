#include "core/diagnostics.hpp"

namespace sf {

Result<void> Diagnostics::warn(Error w, const std::string& once_key) {
    if (strict_) {
        if (w.hint.empty()) w.hint = "--strict makes this an error";
        return unexpected(std::move(w));
    }
    if (seen_.insert(once_key).second) warnings_.push_back(std::move(w));
    return {};
}

}  // namespace sf
