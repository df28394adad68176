"""Fuzzer regression (seed 720031).

Before the fix: statement 3 `v3 = v2[v2 > 0]` v3: shape: glassgrad (0,), PyTorch (1,)
"""

SEED = 720031
PROGRAM = """
v0 = torch.tensor([[-0.383946], [0.06176], [1.33409]], dtype=torch.float32, requires_grad=True)
v1 = v0.squeeze()
v2 = torch.linalg.cross(v1, v1)
v3 = v2[v2 > 0]
"""
