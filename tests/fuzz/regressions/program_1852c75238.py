"""Fuzzer regression (seed 300032).

Before the fix: statement 3 `v1[[5, 0]] += v2` v0: value: max error 0.421: glassgrad [-0.8935998  0.656464
    1.95651    1.11822   -0.0833376 -1.300831   1.106437 ], PyTorch [-0.8935998  1.077233
    1.95651    1.11822   -0.0833376 -1.300831   1.106437 ]
"""

SEED = 300032
PROGRAM = """
v0 = torch.tensor([0.0675322, 0.656464, 1.95651, 1.11822, -0.0833376, -0.339699, 0.685668], dtype=torch.float64)
v1 = v0.unfold(0, 2, 1)
v2 = torch.tensor([-0.961132, 0.420769], dtype=torch.float64, requires_grad=True)
v1[[5, 0]] += v2
"""
