"""Fuzzer regression (fuzz-strides, seed 160210).

Before the fix: statement 2 `v1[::2] = v1`: error: PyTorch raised RuntimeError: unsupported operation: some
    elements of the input tensor and the written-to tensor refer to a single memory location.
    Please clone() the tensor before performing the operation.
"""

SEED = 160210
PROGRAM = """
v0 = torch.tensor([-0.766621], dtype=torch.float64)
with torch.no_grad(): v1 = v0 + v0
v1[::2] = v1
"""
