"""Fuzzer regression (fuzz-views, seed 73653).

Before the fix: statement 3 `with torch.no_grad(): v4 = v1[1]` v4: requires_grad: glassgrad True, PyTorch False
"""

SEED = 73653
PROGRAM = """
v0 = torch.tensor([[0.143978, -0.81441, -2.12621], [-1.40705, -0.372522, -1.22883]], dtype=torch.float64, requires_grad=True)
v1 = v0.T
v0.detach_()
with torch.no_grad(): v4 = v1[1]
"""
