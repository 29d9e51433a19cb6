#pragma once
// libtorch_cpu: dense CPU kernels backed by CBLAS.
#include <vector>

#include <c10/Core.h>

namespace torch {

using Matrix = c10::Matrix;

// a (m x k) times b (k x n) through cblas_dgemm; throws c10::Error on a
// shape mismatch.
TORCH_API Matrix matmul(const Matrix& a, const Matrix& b);

// Single precision row-major GEMM through cblas_sgemm: c = a * b.
TORCH_API void sgemm(int m, int n, int k, const float* a, const float* b, float* c);

// Which CBLAS libtorch_cpu was built against ("openblas", "cblas", "mkl").
TORCH_API const char* blas_name();

namespace linalg {
// Solves a x = b on the CPU (LU with partial pivoting); throws c10::Error
// when a is singular or the shapes do not match.
TORCH_API std::vector<double> solve_cpu(const Matrix& a, const std::vector<double>& b);
}  // namespace linalg

}  // namespace torch
