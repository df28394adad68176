"""Fuzzer regression (seed 1445).

Before the fix: found: before: statement 3 `v1[torch.zeros((3,), dtype=torch.bool)] = v2` v1: requires_grad:
    glassgrad False, PyTorch True
"""

SEED = 1445
PROGRAM = """
v0 = torch.tensor([0.724208, -0.0231386, -1.25876], dtype=torch.float32)
v1 = v0 == v0
v2 = torch.tensor(-0.113766, dtype=torch.float64, requires_grad=True)
v1[torch.zeros((3,), dtype=torch.bool)] = v2
"""
