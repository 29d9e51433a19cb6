// libtorch_global_deps: torch/__init__.py loads it with RTLD_GLOBAL before _C,
// so that the BLAS (and CUDA) libraries it depends on are loaded once, globally,
// as PyTorch does for its CUDA libraries.
#include <c10/Macros.h>

#include "../cpu/Blas.h"

#ifdef TORCH_GLOBAL_DEPS_CUDA
#include <c10/cuda/CUDAFunctions.h>
#endif

extern "C" C10_EXPORT int torch_global_deps_check(void) {
  // Touch each dependency so that no linker drops it as unneeded.
  const double x[1] = {1.0};
  int ok = cblas_ddot(1, x, 1, x, 1) == 1.0 ? 1 : 0;
#ifdef TORCH_GLOBAL_DEPS_CUDA
  if (c10::cuda::device_count() < 0) ok = 0;
#endif
  return ok;
}
