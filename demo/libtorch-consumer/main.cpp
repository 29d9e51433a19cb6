// Uses the archive's C++ API: version, a CPU matmul through CBLAS, the linalg
// backend and, when the build has CUDA and a device, the CUDA matmul.
// Exit 0 and one "ok" line on success. `--expect-gpu`: fail unless CUDA is
// available (scripts/gpu-check.sh).
#include <cmath>
#include <cstdio>
#include <string>

#include <torch/torch.h>

namespace {

torch::Matrix filled(std::size_t r, std::size_t c, double seed) {
  torch::Matrix m(r, c);
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = 0; j < c; ++j) m.at(i, j) = std::fmod(seed * (i + 1) + 0.5 * j, 7.0) - 3.0;
  return m;
}

bool close(const torch::Matrix& a, const torch::Matrix& b) {
  if (a.rows != b.rows || a.cols != b.cols) return false;
  for (std::size_t i = 0; i < a.data.size(); ++i)
    if (std::fabs(a.data[i] - b.data[i]) > 1e-3 * (1.0 + std::fabs(b.data[i]))) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool expect_gpu = argc > 1 && std::string(argv[1]) == "--expect-gpu";
  try {
    torch::Matrix a(2, 2), b(2, 2);
    a.data = {1, 2, 3, 4};
    b.data = {5, 6, 7, 8};
    torch::Matrix c = torch::matmul(a, b);
    if (c.data != std::vector<double>{19, 22, 43, 50}) {
      std::fprintf(stderr, "libtorch_consumer: wrong CPU matmul\n");
      return 1;
    }
    std::string cuda = "not built";
    if (torch::cuda::is_built())
      cuda = torch::cuda::is_available() ? "available" : "unavailable: " + torch::cuda::unavailable_reason();
    if (expect_gpu && !torch::cuda::is_available()) {
      std::fprintf(stderr, "libtorch_consumer: a GPU is expected but CUDA is %s\n", cuda.c_str());
      return 1;
    }
    if (torch::cuda::is_available()) {
      torch::Matrix x = filled(64, 48, 1.3), y = filled(48, 32, 2.1);
      if (!close(torch::cuda::matmul(x, y), torch::matmul(x, y))) {
        std::fprintf(stderr, "libtorch_consumer: CUDA matmul differs from the CPU one\n");
        return 1;
      }
    }
    std::printf("ok: torch %s (%s), linalg %s, cuda %s\n", torch::version(), torch::build_config().c_str(),
                torch::linalg::backend().c_str(), cuda.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "libtorch_consumer: %s\n", e.what());
    return 1;
  }
}
