"""torch.linalg: solve() goes through libtorch_cuda_linalg in CUDA builds
(minimagma or its fallback), and the CPU solver otherwise."""
from torch import _C


def solve(a, b):
    """x such that a @ x == b, for a square a (list of lists) and b (list)."""
    return _C._linalg_solve(a, b)


def backend():
    """'magma X.Y.Z', 'fallback' or 'cpu'."""
    return _C._linalg_backend
