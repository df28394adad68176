"""Fuzzer regression (seed 2365).

Before the fix: found: before: statement 3 `v5 = v4.fill_(1.5)`: error: glassgrad raised RuntimeError:
    unsupported operation: more than one element of the written-to tensor refers to a single
    memory location. Please clone() the tensor before performing the operation.
"""

SEED = 2365
PROGRAM = """
v2 = torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], dtype=torch.float64)
v3 = v2.max()
v4 = v3.expand(3)
v5 = v4.fill_(1.5)
"""
