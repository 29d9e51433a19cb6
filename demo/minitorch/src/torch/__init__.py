"""minitorch: a tiny PyTorch-shaped package (the splitforge demo).

The heavy lifting happens in the C++ libraries under <prefix>/lib; this
package loads them through the torch._C extension module.
"""
import ctypes as _ctypes
import os as _os

from torch import _build_config


def _load_global_deps():
    # As PyTorch does: load libtorch_global_deps (and with it the BLAS and
    # CUDA libraries) with RTLD_GLOBAL before _C.
    lib = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)),
                        _build_config.lib_dir, "libtorch_global_deps.so")
    _ctypes.CDLL(_os.path.normpath(lib), mode=_ctypes.RTLD_GLOBAL)


_load_global_deps()

from torch import _C  # noqa: E402

__version__ = _C._version

from torch import cuda  # noqa: E402
from torch import linalg  # noqa: E402


def matmul(a, b):
    """Matrix product of two lists of lists of floats, computed by
    libtorch_cpu through CBLAS (cblas_dgemm)."""
    return _C._matmul(a, b)


def has_magma():
    """True when the installed libtorch_cuda_linalg links minimagma."""
    return bool(_C._has_magma)


__all__ = ["__version__", "matmul", "has_magma", "cuda", "linalg"]
