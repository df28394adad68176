"""Fuzzer regression (seed 1370).

Before the fix: found: before: statement 2 `v3[1:] = v7` v3: requires_grad: glassgrad False, PyTorch True
"""

SEED = 1370
PROGRAM = """
v3 = torch.amin(torch.tensor([[3, 1], [2, 5]], dtype=torch.int64), 0)
v7 = torch.tensor(0.29973, dtype=torch.float64, requires_grad=True)
v3[1:] = v7
"""
