#include <c10/cuda/CUDAFunctions.h>

#include <cuda_runtime_api.h>

namespace c10::cuda {

namespace {
struct Probe {
  int count = 0;
  cudaError_t status = cudaSuccess;
};

// Queried once; a missing driver is an ordinary answer, not an error.
const Probe& probe() {
  static const Probe p = [] {
    Probe r;
    r.status = cudaGetDeviceCount(&r.count);
    if (r.status != cudaSuccess) {
      r.count = 0;
      cudaGetLastError();  // clear the sticky error
    }
    return r;
  }();
  return p;
}
}  // namespace

int device_count() noexcept {
  try {
    return probe().count;
  } catch (...) {
    return 0;
  }
}

std::string unavailable_reason() {
  const Probe& p = probe();
  if (p.status != cudaSuccess) return cudaGetErrorString(p.status);
  if (p.count == 0) return "no CUDA device";
  return "";
}

}  // namespace c10::cuda
