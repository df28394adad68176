"""Fuzzer regression (seed 3092).

Before the fix: found: before: statement 5 `v5[torch.zeros((12,), dtype=torch.bool)] = v3` v2: requires_grad:
    glassgrad False, PyTorch True
"""

SEED = 3092
PROGRAM = """
v0 = torch.tensor([[-3.88374, -4.31532, -0.0813921, -7.36833], [-2.07283, -2.67328, -0.0800844, -4.92302], [-1.11878, -2.47509, 1.2276, -6.17327]], dtype=torch.float32)
v1 = torch.nn.functional.celu_(v0, alpha=2.0)
v2 = -1.5 == v1
v3 = torch.tensor(0.676498, dtype=torch.float64, requires_grad=True)
v5 = v2.flatten()
v5[torch.zeros((12,), dtype=torch.bool)] = v3
"""
