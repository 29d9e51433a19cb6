#pragma once
#include "recipe/raw.hpp"
