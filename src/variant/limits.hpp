#pragma once
// Bounds on the variant matrix: a small config file must not be able to ask
// for millions of combinations (4 keys x 200 values is 1.6 billion).
#include <cstddef>

#include "core/error.hpp"
#include "variant/config.hpp"

namespace sf::variant {

inline constexpr std::size_t kMaxVariants = 10'000;

// Fails when the product over the keys (zipped keys counting once) exceeds
// kMaxVariants, naming the keys that multiply and where each was set.
Result<void> check_matrix_size(const CombinedSpec& spec);

}  // namespace sf::variant
