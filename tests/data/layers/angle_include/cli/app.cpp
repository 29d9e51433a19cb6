#include "cli/app.hpp"
#include "render/render.hpp"
#include <recipe/raw.hpp>
