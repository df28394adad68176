"""Fuzzer regression (seed 723049).

Before the fix: statement 2 `v13 = torch.cov(v11, aweights=v12)`: error: PyTorch raised RuntimeError: cov():
    weights sum to zero, can't be normalized
"""

SEED = 723049
PROGRAM = """
v11 = torch.tensor([[-0.202338, 1.31948, 0.00597437, -0.962276], [1.24631, -0.346069, -0.135351, 0.397696]], dtype=torch.float64, requires_grad=True)
v12 = torch.tensor([0.0, -0.0, 0.0, 0.0], dtype=torch.float64)
v13 = torch.cov(v11, aweights=v12)
"""
