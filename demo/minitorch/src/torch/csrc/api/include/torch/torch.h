#pragma once
// The minitorch C++ API: include this and link torch::torch.
#include <string>

#include <c10/Core.h>
#include <torch/Tensor.h>
#include <torch/cuda.h>

namespace torch {
// The version string, e.g. "0.3.0".
TORCH_API const char* version();
// One line describing the build: version, BLAS, CUDA.
TORCH_API std::string build_config();
}  // namespace torch
