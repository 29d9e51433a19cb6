#pragma once
// Symbol visibility: each shared library exports what its headers declare.
#define C10_EXPORT __attribute__((visibility("default")))
#define C10_IMPORT C10_EXPORT

#ifdef C10_BUILD_MAIN_LIB
#define C10_API C10_EXPORT
#else
#define C10_API C10_IMPORT
#endif

#ifdef TORCH_BUILD_MAIN_LIB
#define TORCH_API C10_EXPORT
#else
#define TORCH_API C10_IMPORT
#endif
