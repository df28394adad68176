"""Fuzzer regression (fuzz-strides, seed 100420).

Before the fix: statement 2 `v1[torch.zeros((0,), dtype=torch.bool)] = v1`: error: PyTorch raised RuntimeError:
    unsupported operation: some elements of the input tensor and the written-to tensor refer to
    a single memory location. Please clone() the tensor before performing the operation.
"""

SEED = 100420
PROGRAM = """
v0 = torch.zeros((0,), dtype=torch.float64)
v1 = v0 == v0
v1[torch.zeros((0,), dtype=torch.bool)] = v1
"""
