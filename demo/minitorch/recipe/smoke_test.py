"""The demo's one smoke test, as PyTorch's smoke_test.py: the conda test
section (pytorch), the wheel test and scripts/gpu-check.sh all run this file.

  python smoke_test.py [--expect-gpu yes|no|auto] [--linalg magma|fallback|cpu|auto]

--expect-gpu auto (the default) expects a usable GPU when this minitorch has
CUDA built in and the machine shows one (/dev/nvidia0 or
/proc/driver/nvidia/gpus/*); yes fails unless CUDA works; --linalg auto expects the
linalg flavour the install holds (libminimagma next to libtorch_cuda_linalg,
in lib/ or torch.libs/). Exit 0 and one "smoke test passed" line, or an
AssertionError saying what differs.
"""
import argparse
import glob
import os
import re
import sys

import torch

SIZES = [(1, 1, 1), (2, 3, 4), (7, 5, 3), (16, 16, 16), (33, 17, 65), (64, 128, 32), (100, 100, 100), (200, 200, 200)]


def gpu_present():
    return os.path.exists("/dev/nvidia0") or bool(glob.glob("/proc/driver/nvidia/gpus/*"))


def matrix(rows, cols, seed):
    # Small integers and halves: exact in float32 sums of a few hundred terms.
    return [[float(((i * 7 + j * 3 + seed) % 11) - 5) / 2.0 for j in range(cols)] for i in range(rows)]


def lib_dirs():
    """Where this install's C++ libraries are: the conda prefix's lib/ and,
    for a wheel, torch/lib and torch.libs/ beside the package."""
    pkg = os.path.dirname(os.path.abspath(torch.__file__))
    from torch import _build_config
    dirs = [os.path.normpath(os.path.join(pkg, _build_config.lib_dir)), os.path.join(pkg, "lib"),
            os.path.join(os.path.dirname(pkg), "torch.libs")]
    return [d for d in dirs if os.path.isdir(d)]


def installed_flavour():
    if not torch.cuda.is_built():
        return "cpu"
    found = [f for d in lib_dirs() for f in os.listdir(d) if f.startswith("libminimagma")]
    return "magma" if found else "fallback"


def check_basics():
    assert re.fullmatch(r"\d+\.\d+\.\d+", torch.__version__), torch.__version__
    got = torch.matmul([[1, 2], [3, 4]], [[5, 6], [7, 8]])
    assert got == [[19.0, 22.0], [43.0, 50.0]], got
    x = torch.linalg.solve([[2, 1], [1, 3]], [3, 5])
    assert abs(x[0] - 0.8) < 1e-5 and abs(x[1] - 1.4) < 1e-5, x


def check_cuda(expect_gpu):
    available = torch.cuda.is_available()
    if not expect_gpu:
        assert not available, "CUDA is available but no GPU was expected"
        reason = torch.cuda.unavailable_reason()
        assert reason, "CUDA is unavailable without a reason"
        if torch.cuda.is_built():
            assert re.search(r"driver|device|CUDA", reason), "unclear reason: " + reason
        else:
            assert "without CUDA" in reason, reason
        try:
            torch.cuda.matmul([[1.0]], [[1.0]])
        except RuntimeError as e:
            assert "not available" in str(e), str(e)
        else:
            raise AssertionError("cuda.matmul worked without CUDA")
        return "unavailable: " + reason
    assert torch.cuda.is_built(), "a GPU is expected but this minitorch was built without CUDA"
    assert available, "a GPU is expected but CUDA is unavailable: " + torch.cuda.unavailable_reason()
    for m, k, n in SIZES:
        a, b = matrix(m, k, 1), matrix(k, n, 2)
        gpu, cpu = torch.cuda.matmul(a, b), torch.matmul(a, b)
        assert len(gpu) == m and all(len(r) == n for r in gpu), (m, k, n)
        worst = max(abs(g - c) for gr, cr in zip(gpu, cpu) for g, c in zip(gr, cr))
        assert worst <= 1e-3, "CUDA matmul differs from the CPU one at %dx%dx%d by %g" % (m, k, n, worst)
    return "%d device(s), matmul equal on %d sizes up to 200x200" % (torch.cuda.device_count(), len(SIZES))


def check_linalg(expect):
    backend = torch.linalg.backend()
    if expect == "magma":
        assert backend.startswith("magma "), "linalg backend %r, magma installed" % backend
        assert torch.has_magma()
    elif expect == "fallback":
        assert backend == "fallback", "linalg backend %r, the fallback installed" % backend
        assert not torch.has_magma()
    else:
        assert backend == "cpu", "linalg backend %r in a CPU build" % backend
    return backend


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--expect-gpu", choices=["yes", "no", "auto"], default="auto")
    p.add_argument("--linalg", choices=["magma", "fallback", "cpu", "auto"], default="auto")
    args = p.parse_args()
    if args.expect_gpu == "auto":
        expect_gpu = torch.cuda.is_built() and gpu_present()
    else:
        expect_gpu = args.expect_gpu == "yes"
    flavour = installed_flavour() if args.linalg == "auto" else args.linalg
    check_basics()
    cuda = check_cuda(expect_gpu)
    backend = check_linalg(flavour)
    print("smoke test passed: torch %s, cuda %s, linalg %s" % (torch.__version__, cuda, backend))


if __name__ == "__main__":
    sys.exit(main())
