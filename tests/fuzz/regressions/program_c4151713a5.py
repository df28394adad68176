"""Fuzzer regression (seed 61138).

Before the fix: statement 3 `v7 = v2.relu_()`: error: PyTorch raised RuntimeError: Boolean inputs not supported
    for relu (the check was in F.relu only, not in the op torch.relu and Tensor.relu_ share)
"""

SEED = 61138
PROGRAM = """
v0 = torch.tensor([1.30263, 0.993898, -1.73109], dtype=torch.float64)
v1 = torch.tensor(-0.891582, dtype=torch.float64, requires_grad=True)
v2 = v0 >= v1
v7 = v2.relu_()
"""
