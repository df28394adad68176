"""Fuzzer regression (seed 3327).

Before the fix: found: before: statement 4 `v5[torch.zeros((0,), dtype=torch.bool)] = v12` v5: requires_grad:
    glassgrad False, PyTorch True
"""

SEED = 3327
PROGRAM = """
v0 = torch.zeros((0,), dtype=torch.float64, requires_grad=True)
v4 = v0.reshape(-1)
v5 = 0.5 == v4
v12 = torch.tensor(-0.245821, dtype=torch.float64, requires_grad=True)
v5[torch.zeros((0,), dtype=torch.bool)] = v12
"""
