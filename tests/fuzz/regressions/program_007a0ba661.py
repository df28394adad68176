"""Fuzzer regression (seed 856012).

Before the fix: hook h13: count: glassgrad 2, PyTorch 3
"""

SEED = 856012
PROGRAM = """
v2 = torch.tensor([[0.35672, 0.300124, -0.250738, 0.390124], [-0.697439, 0.33369, 1.24767, -0.00613408], [-0.489752, 0.672729, 0.595718, -1.07814]], dtype=torch.float64, requires_grad=True)
v3 = torch.tensor([[0.598783, -1.72546, 0.149169, 0.166725], [1.73637, -0.950939, 0.797019, 0.579426], [1.02667, -0.436471, 0.473621, 0.298064]], dtype=torch.float64, requires_grad=True)
v4 = torch.arctan2(v2, v3)
v5 = torch.take_along_dim(v4, torch.tensor([[0, 3], [1, 1], [2, 0]], dtype=torch.int64), 1)
v4.detach_()
v9 = torch.zeros((0, 3,), dtype=torch.float64, requires_grad=True)
v10 = v9.erfc()
_ = v9.register_hook(hook('h13'))
"""
