#include "recipe/raw.hpp"
#include <types/version.hpp>
