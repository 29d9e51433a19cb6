// libtorch: the thin umbrella over libtorch_cpu (and libtorch_cuda).
#include <torch/torch.h>

#ifdef TORCH_WITH_CUDA
#include <torch/csrc/cuda/CUDAContext.h>
#endif

namespace torch {

const char* version() { return c10::version(); }

std::string build_config() {
  std::string s = std::string("minitorch ") + version() + ", BLAS=" + blas_name();
#ifdef TORCH_WITH_CUDA
  s += ", CUDA=" TORCH_CUDA_VERSION ", linalg=" + linalg::backend();
#else
  s += ", CUDA=none";
#endif
  return s;
}

namespace cuda {

#ifdef TORCH_WITH_CUDA
bool is_built() { return true; }
bool is_available() { return detail::is_available(); }
int device_count() { return detail::device_count(); }
std::string unavailable_reason() { return detail::unavailable_reason(); }
bool has_magma() { return detail::linalg_has_magma(); }
Matrix matmul(const Matrix& a, const Matrix& b) { return detail::matmul(a, b); }
#else
bool is_built() { return false; }
bool is_available() { return false; }
int device_count() { return 0; }
std::string unavailable_reason() { return "minitorch was built without CUDA"; }
bool has_magma() { return false; }
Matrix matmul(const Matrix&, const Matrix&) {
  throw c10::Error("CUDA is not available: minitorch was built without CUDA");
}
#endif

}  // namespace cuda

namespace linalg {

std::vector<double> solve(const Matrix& a, const std::vector<double>& b) {
#ifdef TORCH_WITH_CUDA
  if (cuda::detail::linalg_loaded()) return cuda::detail::linalg_solve(a, b);
#endif
  return solve_cpu(a, b);
}

std::string backend() {
#ifdef TORCH_WITH_CUDA
  return cuda::detail::linalg_backend();
#else
  return "cpu";
#endif
}

}  // namespace linalg

}  // namespace torch
