#include "CUDAContext.h"

#include <dlfcn.h>

#include <c10/cuda/CUDAFunctions.h>

namespace torch::cuda::detail {

c10::Matrix matmul_on_device(const c10::Matrix& a, const c10::Matrix& b);  // Kernels.cu

bool is_available() { return c10::cuda::device_count() > 0; }
int device_count() { return c10::cuda::device_count(); }
std::string unavailable_reason() { return c10::cuda::unavailable_reason(); }

c10::Matrix matmul(const c10::Matrix& a, const c10::Matrix& b) {
  c10::check(is_available(), "CUDA is not available: " + unavailable_reason());
  c10::check(a.cols == b.rows, "matmul: inner dimensions do not match");
  return matmul_on_device(a, b);
}

namespace {

struct Linalg {
  void* handle = nullptr;
  std::string error;
  torch_linalg_has_magma_fn has_magma = nullptr;
  torch_linalg_backend_fn backend = nullptr;
  torch_linalg_solve_fn solve = nullptr;
};

// The directory holding this library, so that the linalg library is found
// next to it wherever the package was installed.
std::string own_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_directory), &info) == 0 || info.dli_fname == nullptr)
    return "";
  std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

const Linalg& linalg() {
  static const Linalg lib = [] {
    Linalg l;
    const std::string dir = own_directory();
    const std::string path = (dir.empty() ? "" : dir + "/") + "libtorch_cuda_linalg.so";
    l.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (l.handle == nullptr) {
      const char* err = dlerror();
      l.error = err != nullptr ? err : ("cannot load " + path);
      return l;
    }
    l.has_magma = reinterpret_cast<torch_linalg_has_magma_fn>(
        dlsym(l.handle, "torch_cuda_linalg_has_magma"));
    l.backend =
        reinterpret_cast<torch_linalg_backend_fn>(dlsym(l.handle, "torch_cuda_linalg_backend"));
    l.solve = reinterpret_cast<torch_linalg_solve_fn>(dlsym(l.handle, "torch_cuda_linalg_solve"));
    if (!l.has_magma || !l.backend || !l.solve) l.error = path + " lacks the linalg entry points";
    return l;
  }();
  return lib;
}

}  // namespace

bool linalg_loaded() { return linalg().error.empty(); }

bool linalg_has_magma() { return linalg_loaded() && linalg().has_magma() != 0; }

std::string linalg_backend() {
  return linalg_loaded() ? linalg().backend() : "unavailable (" + linalg().error + ")";
}

std::vector<double> linalg_solve(const c10::Matrix& a_in, const std::vector<double>& b_in) {
  c10::check(linalg_loaded(), "libtorch_cuda_linalg is not available: " + linalg().error);
  c10::check(a_in.rows == a_in.cols, "solve: the matrix must be square");
  c10::check(b_in.size() == a_in.rows, "solve: the right-hand side has the wrong length");
  c10::Matrix a = a_in;
  std::vector<double> b = b_in;
  const int info = linalg().solve(static_cast<int>(a.rows), a.data.data(), b.data());
  c10::check(info == 0, "solve: the matrix is singular (info=" + std::to_string(info) + ")");
  return b;
}

}  // namespace torch::cuda::detail
