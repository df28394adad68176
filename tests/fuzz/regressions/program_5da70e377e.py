"""Fuzzer regression (seed 2003).

Before the fix: found: before: statement 3 `v2[:] = v5` v2: requires_grad: glassgrad False, PyTorch True
"""

SEED = 2003
PROGRAM = """
v1 = torch.tensor([-0.0793007, 0.497556, -0.97162], dtype=torch.float64, requires_grad=True)
v2 = v1.ge(0.0)
v5 = torch.tensor(0.751463, dtype=torch.float64, requires_grad=True)
v2[:] = v5
"""
