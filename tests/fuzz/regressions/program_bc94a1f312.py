"""Fuzzer regression (lead, fuzz run seeds 50000+).

Before the fix: statement 5 `v9.detach_()`: error: glassgrad raised RuntimeError: Can't detach views in-place
    (matmul of a vector was a view of the mm temporary; PyTorch squeezes in place)
"""

SEED = 50632
PROGRAM = """
v0 = torch.zeros((0,), dtype=torch.float64)
v2 = torch.zeros((0, 2,), dtype=torch.float64, requires_grad=True)
v3 = v0 @ v2
v8 = torch.tensor(0.854756, dtype=torch.float32, requires_grad=True)
v9 = v3.mul_(v8)
v9.detach_()
"""
