"""torch.cuda: never raises just because there is no GPU."""
from torch import _C


def is_built():
    """True when minitorch was compiled with CUDA."""
    return bool(_C._has_cuda)


def is_available():
    """True when CUDA is built in and a device is usable; False otherwise."""
    return bool(_C._cuda_is_available())


def device_count():
    return int(_C._cuda_device_count())


def unavailable_reason():
    return _C._cuda_unavailable_reason()


def matmul(a, b):
    """Matrix product computed by the CUDA kernel in libtorch_cuda.
    Raises RuntimeError when CUDA is not available."""
    return _C._cuda_matmul(a, b)
