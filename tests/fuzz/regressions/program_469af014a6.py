"""Fuzzer regression (fuzz-views, seed 82027).

Before the fix: statement 7 `v6[[0, 0]] *= v7`: error: PyTorch raised RuntimeError: a view of a leaf Variable
    that requires grad is being used in an in-place operation.
"""

SEED = 82027
PROGRAM = """
v1 = torch.tensor([[-0.467215, 0.930589, 0.325357, -0.0400334], [0.13522, 0.626456, -0.931093, 0.745993], [-0.0954689, 0.295376, 0.0694463, -0.798187]], dtype=torch.float64, requires_grad=True)
v2 = torch.tensor([[-1.94881, -0.834753, 0.45978, -0.376116], [-0.958721, 0.121681, 1.6313, 0.329005], [-0.0554016, -0.802252, -0.0404302, -2.82046]], dtype=torch.float64, requires_grad=True)
v3 = torch.linalg.vecdot(v1, v2)
v4 = v3.view((3,))
v3.detach_()
v6 = v4.flatten()
v7 = torch.tensor(0.735438, dtype=torch.float32, requires_grad=True)
v6[[0, 0]] *= v7
"""
