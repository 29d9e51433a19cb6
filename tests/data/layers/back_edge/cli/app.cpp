#include "cli/app.hpp"
#include "render/render.hpp"
