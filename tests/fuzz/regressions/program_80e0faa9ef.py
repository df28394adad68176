"""Fuzzer regression (fuzz-views, seed 76261).

Before the fix: statement 4 `v5 = v4[v4 > 0]` v5: requires_grad: glassgrad False, PyTorch True
"""

SEED = 76261
PROGRAM = """
v0 = torch.tensor([[1.19996, -0.0431786, 0.751978, 0.948187], [-0.918551, -0.942198, 0.356108, 0.0749237], [0.667943, -0.276946, -2.24042, -1.22974]], dtype=torch.float64)
v1 = torch.mean(v0, 0, keepdim=True)
v4 = v1.transpose(1, 0)
v1.requires_grad_()
v5 = v4[v4 > 0]
"""
