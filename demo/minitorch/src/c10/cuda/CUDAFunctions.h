#pragma once
// libc10_cuda: device queries that never throw and never crash without a GPU.
#include <string>

#include <c10/Macros.h>

#ifdef C10_CUDA_BUILD_MAIN_LIB
#define C10_CUDA_API C10_EXPORT
#else
#define C10_CUDA_API C10_IMPORT
#endif

namespace c10::cuda {

// Number of usable devices; 0 when there is no driver, no GPU, or any error.
C10_CUDA_API int device_count() noexcept;

// Why device_count() is 0 ("" when devices were found).
C10_CUDA_API std::string unavailable_reason();

}  // namespace c10::cuda
