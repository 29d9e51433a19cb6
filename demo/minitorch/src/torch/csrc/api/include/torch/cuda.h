#pragma once
// CUDA queries of the libtorch umbrella; all of them work in CPU-only builds
// and on machines without a GPU (they report "not available").
#include <string>
#include <vector>

#include <torch/Tensor.h>

namespace torch::cuda {

// True when this build has CUDA support compiled in.
TORCH_API bool is_built();
// True when CUDA is built in and a usable device is present. Never throws.
TORCH_API bool is_available();
TORCH_API int device_count();
// Why is_available() is false ("" when it is true).
TORCH_API std::string unavailable_reason();
// True when the installed libtorch_cuda_linalg was built with magma.
TORCH_API bool has_magma();
// Matrix product computed by a CUDA kernel; throws c10::Error when CUDA is
// not available.
TORCH_API Matrix matmul(const Matrix& a, const Matrix& b);

}  // namespace torch::cuda

namespace torch::linalg {
// Solves a x = b: through libtorch_cuda_linalg (magma or its fallback) in
// CUDA builds, on the CPU otherwise.
TORCH_API std::vector<double> solve(const Matrix& a, const std::vector<double>& b);
// "magma <version>", "fallback" or "cpu".
TORCH_API std::string backend();
}  // namespace torch::linalg
