"""Fuzzer regression (seed 3328).

Before the fix: found: before: statement 3 `v2[:, 0] = v3` v2: requires_grad: glassgrad False, PyTorch True
"""

SEED = 3328
PROGRAM = """
v0 = torch.tensor([[0.554374, -1.1101, -1.38046], [0.64142, -0.917612, -2.03029], [-1.28105, -0.537806, 0.125522], [-0.290149, 0.834335, 1.00122]], dtype=torch.float32)
v2 = v0 == v0
v3 = torch.tensor(-0.0635884, dtype=torch.float64, requires_grad=True)
v2[:, 0] = v3
"""
