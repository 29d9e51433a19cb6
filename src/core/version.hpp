#pragma once
// splitforge's version, from CMake's project(VERSION): what --version
// prints, what packages and wheels record as their generator, and what a
// staging archive must have been written by.
namespace sf {
inline constexpr const char* kVersion = SF_VERSION;
}  // namespace sf
