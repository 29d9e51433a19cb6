#pragma once
// libtorch_cuda's internal interface, used by the libtorch umbrella.
#include <string>
#include <vector>

#include <c10/Core.h>

#ifdef TORCH_CUDA_BUILD_MAIN_LIB
#define TORCH_CUDA_API C10_EXPORT
#else
#define TORCH_CUDA_API C10_IMPORT
#endif

namespace torch::cuda::detail {

TORCH_CUDA_API bool is_available();
TORCH_CUDA_API int device_count();
TORCH_CUDA_API std::string unavailable_reason();
// Runs the matmul kernel (Kernels.cu); throws c10::Error without a device.
TORCH_CUDA_API c10::Matrix matmul(const c10::Matrix& a, const c10::Matrix& b);

// libtorch_cuda_linalg is loaded lazily, next to libtorch_cuda.so.
TORCH_CUDA_API bool linalg_loaded();
TORCH_CUDA_API bool linalg_has_magma();
TORCH_CUDA_API std::string linalg_backend();
TORCH_CUDA_API std::vector<double> linalg_solve(const c10::Matrix& a, const std::vector<double>& b);

}  // namespace torch::cuda::detail

// The C ABI that libtorch_cuda_linalg exports (looked up with dlsym).
extern "C" {
typedef int (*torch_linalg_has_magma_fn)(void);
typedef const char* (*torch_linalg_backend_fn)(void);
typedef int (*torch_linalg_solve_fn)(int n, double* a, double* b);
}
