"""Fuzzer regression (seed 1478).

Before the fix: found: before: statement 2 `v2[[0, 0]] = v2`: error: PyTorch raised RuntimeError: unsupported
    operation: some elements of the input tensor and the written-to tensor refer to a single
    memory location. Please clone() the tensor before performing the operation.
"""

SEED = 1478
PROGRAM = """
v1 = torch.tensor([[-0.627644, 0.37856, -0.803289], [0.1653, -0.00834967, -0.596918]], dtype=torch.float32)
v2 = 2.5 ** v1
v2[[0, 0]] = v2
"""
