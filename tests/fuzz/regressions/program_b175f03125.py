"""Fuzzer regression (fuzz-strides, seed 97783).

Before the fix: phase grad requires_grad: flags: glassgrad [False], PyTorch [True]
"""

SEED = 97783
PROGRAM = """
v0 = torch.zeros((0,), dtype=torch.float32, requires_grad=True)
v1, v2 = v0.chunk(2, 0)
v6 = v2 % True
v7 = v6.atan_()
"""
