#include "cli/app.hpp"
#include "core/error.hpp"
