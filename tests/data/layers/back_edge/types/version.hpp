#pragma once
#include "core/error.hpp"
#include "render/render.hpp"
