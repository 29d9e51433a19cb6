"""The smoke test of published pytorch packages (`splitforge smoke`, the
generated CI's upload job): what PyTorch's binary smoke test checks first.
`--expect-gpu yes|no` (default: either) says whether CUDA must work."""
import argparse
import sys

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--expect-gpu", choices=["yes", "no"])
args = parser.parse_args()

print("torch", torch.__version__, "from", torch.__file__)
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
b = torch.tensor([[5.0, 6.0], [7.0, 8.0]])
assert torch.equal(a @ b, torch.tensor([[19.0, 22.0], [43.0, 50.0]])), a @ b
cuda = torch.cuda.is_available()
print("cuda available:", cuda, "built:", torch.backends.cuda.is_built())
if args.expect_gpu == "yes" and not cuda:
    sys.exit("smoke_test.py: CUDA is not available")
if args.expect_gpu == "no" and cuda:
    sys.exit("smoke_test.py: CUDA is available, yet a CPU build was expected")
if cuda:
    x = torch.ones(64, 64, device="cuda")
    assert float((x @ x).sum()) == 64.0 * 64 * 64
print("ok")
