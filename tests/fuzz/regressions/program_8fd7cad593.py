"""Fuzzer regression (seed 1086).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: unsupported operation: more
    than one element of the written-to tensor refers to a single memory location. Please clone()
    the tensor before performing the operation.
"""

SEED = 1086
PROGRAM = """
v0 = torch.tensor(-0.323821, dtype=torch.float64, requires_grad=True)
v1 = torch.sigmoid(v0)
v2 = v0 % v1
v3 = v1 * 2
v5 = v2 == v3
v6 = v2.expand(2, *v2.shape)
v6[[0, 0]] += v5
"""
