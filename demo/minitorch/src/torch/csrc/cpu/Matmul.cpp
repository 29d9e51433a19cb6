#include <torch/Tensor.h>

#include "Blas.h"

namespace torch {

Matrix matmul(const Matrix& a, const Matrix& b) {
  c10::check(a.cols == b.rows, "matmul: shapes " + std::to_string(a.rows) + "x" +
                                   std::to_string(a.cols) + " and " + std::to_string(b.rows) +
                                   "x" + std::to_string(b.cols) + " cannot be multiplied");
  Matrix c(a.rows, b.cols);
  if (a.rows == 0 || b.cols == 0) return c;
  if (a.cols == 0) return c;  // an empty inner dimension gives zeros
  const int m = static_cast<int>(a.rows), n = static_cast<int>(b.cols),
            k = static_cast<int>(a.cols);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a.data.data(), k,
              b.data.data(), n, 0.0, c.data.data(), n);
  return c;
}

void sgemm(int m, int n, int k, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}

const char* blas_name() {
#ifdef TORCH_BLAS_MKL
  return "mkl";
#else
  return TORCH_BLAS_NAME;
#endif
}

}  // namespace torch
