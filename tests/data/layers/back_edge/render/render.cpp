#include "render/render.hpp"

#  include "core/error.hpp"
#include <fmt/format.h>
# include	"types/version.hpp"
