"""Fuzzer regression (seed 2531).

Before the fix: found: before: statement 4 `with torch.no_grad(): v5 = v2 % v4` v5: value: max error 1.91e-06:
    glassgrad [[ 0.05203363 -0.32199272  0.6182874   0.53698025]
"""

SEED = 2531
PROGRAM = """
v1 = torch.tensor([[0.944764, -0.421115, -1.69435, -1.47002], [0.147015, -1.65155, -0.245018, -1.89777], [-1.16561, -2.14281, -0.738138, 1.33953]], dtype=torch.float32, requires_grad=True)
v2 = v1.cosh()
v3 = v2.sinh_()
v4 = torch.tensor([[0.338625, -1.641, 0.960633, 0.543496], [-0.79303, -0.128761, -0.0910323, -0.171405], [0.0468751, -0.459143, 0.583019, -0.239917]], dtype=torch.float64, requires_grad=True)
with torch.no_grad(): v5 = v2 % v4
"""
