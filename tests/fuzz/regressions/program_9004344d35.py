"""Fuzzer regression (fuzz-views, seed 80310).

Before the fix: statement 2 `v0.detach_()` v1: requires_grad: glassgrad True, PyTorch False
"""

SEED = 80310
PROGRAM = """
v0 = torch.tensor([-0.824782, -0.299587, 0.204551, 0.505827], dtype=torch.float64, requires_grad=True)
with torch.no_grad(): v1 = v0.reshape(-1)
v0.detach_()
"""
