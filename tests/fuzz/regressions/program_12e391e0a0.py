"""Fuzzer regression (fuzz-strides, seed 166363).

Before the fix: statement 3 `v1[1:] = v2`: error type: glassgrad RuntimeError: copy_: The size of tensor a
    ((0,)) must match the size of tensor b ((1, 0)) / PyTorch TypeError: can't assign a tuple to
    a torch.DoubleTensor
"""

SEED = 166363
PROGRAM = """
v0 = torch.zeros((0,), dtype=torch.float64, requires_grad=True)
v1 = v0.detach()
v2 = v1.split(1, 0)
v1[1:] = v2
"""
