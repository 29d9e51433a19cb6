// libtorch_cuda_linalg: the dense solver behind torch.linalg.solve in CUDA
// builds. With USE_MAGMA it calls libminimagma; without, a built-in fallback.
// libtorch_cuda dlopen()s this library and looks up the C entry points below.
#include <cmath>
#include <utility>
#include <vector>

#include <c10/Macros.h>

#ifdef USE_MAGMA
#include <minimagma.h>
#include <string>
#endif

extern "C" {

C10_EXPORT int torch_cuda_linalg_has_magma(void) {
#ifdef USE_MAGMA
  return 1;
#else
  return 0;
#endif
}

C10_EXPORT const char* torch_cuda_linalg_backend(void) {
#ifdef USE_MAGMA
  static const std::string name = [] {
    const int v = minimagma_version();
    return "magma " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
           std::to_string(v % 100);
  }();
  return name.c_str();
#else
  return "fallback";
#endif
}

// Solves a x = b in place (a: n x n row-major, overwritten; b becomes x).
// Returns 0, or k > 0 when the k-th pivot is zero.
C10_EXPORT int torch_cuda_linalg_solve(int n, double* a, double* b) {
#ifdef USE_MAGMA
  // minimagma works in single precision, like a mixed-precision GPU solver.
  std::vector<float> af(a, a + static_cast<std::size_t>(n) * n), bf(b, b + n);
  const int info = minimagma_sgesv(n, af.data(), bf.data());
  if (info != 0) return info;
  for (int i = 0; i < n; ++i) b[i] = bf[i];
  return 0;
#else
  auto at = [&](int r, int c) -> double& { return a[static_cast<std::size_t>(r) * n + c]; };
  for (int k = 0; k < n; ++k) {
    int p = k;
    for (int i = k + 1; i < n; ++i)
      if (std::fabs(at(i, k)) > std::fabs(at(p, k))) p = i;
    if (at(p, k) == 0.0) return k + 1;
    if (p != k) {
      for (int j = 0; j < n; ++j) std::swap(at(k, j), at(p, j));
      std::swap(b[k], b[p]);
    }
    for (int i = k + 1; i < n; ++i) {
      const double l = at(i, k) / at(k, k);
      for (int j = k; j < n; ++j) at(i, j) -= l * at(k, j);
      b[i] -= l * b[k];
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    double s = b[i];
    for (int j = i + 1; j < n; ++j) s -= at(i, j) * b[j];
    b[i] = s / at(i, i);
  }
  return 0;
#endif
}

}  // extern "C"
