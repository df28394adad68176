"""Fuzzer regression (fuzz-views, seed 75150).

Before the fix: phase grad requires_grad: flags: glassgrad [False, False, True], PyTorch [True, True, True]
"""

SEED = 75150
PROGRAM = """
v2 = torch.zeros((0, 3,), dtype=torch.float64, requires_grad=True)
v3 = torch.tensor([0.354452, 0.311899, -0.166616], dtype=torch.float64, requires_grad=True)
v4 = torch.add(v2, v3)
v5 = torch.zeros((0, 3,), dtype=torch.float64)
v4[1:] = v5
v15 = torch.zeros((0,), dtype=torch.float64, requires_grad=True)
v4[:, 0] *= v15
"""
