// The one real CUDA kernel of minitorch: a naive double-precision matmul.
#include <cuda_runtime.h>

#include <string>

#include <c10/Core.h>

namespace torch::cuda::detail {

namespace {

__global__ void matmul_kernel(const double* a, const double* b, double* c, int m, int n,
                              int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  double s = 0.0;
  for (int i = 0; i < k; ++i) s += a[row * k + i] * b[i * n + col];
  c[row * n + col] = s;
}

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw c10::Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
}

// Frees device buffers on every path.
struct DeviceBuffer {
  double* ptr = nullptr;
  explicit DeviceBuffer(std::size_t count) {
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&ptr), count * sizeof(double)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

}  // namespace

c10::Matrix matmul_on_device(const c10::Matrix& a, const c10::Matrix& b) {
  c10::Matrix c(a.rows, b.cols);
  if (c.data.empty()) return c;
  const int m = static_cast<int>(a.rows), n = static_cast<int>(b.cols),
            k = static_cast<int>(a.cols);
  DeviceBuffer da(a.data.size() + 1), db(b.data.size() + 1), dc(c.data.size());
  check_cuda(cudaMemcpy(da.ptr, a.data.data(), a.data.size() * sizeof(double),
                        cudaMemcpyHostToDevice), "cudaMemcpy");
  check_cuda(cudaMemcpy(db.ptr, b.data.data(), b.data.size() * sizeof(double),
                        cudaMemcpyHostToDevice), "cudaMemcpy");
  const dim3 block(16, 16);
  const dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
  matmul_kernel<<<grid, block>>>(da.ptr, db.ptr, dc.ptr, m, n, k);
  check_cuda(cudaGetLastError(), "matmul_kernel launch");
  check_cuda(cudaMemcpy(c.data.data(), dc.ptr, c.data.size() * sizeof(double),
                        cudaMemcpyDeviceToHost), "cudaMemcpy");
  return c;
}

}  // namespace torch::cuda::detail
