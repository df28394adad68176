"""Fuzzer regression (seed 847305).

Before the fix: statement 3 `v3[torch.tensor([0])] = v3`: error: glassgrad raised RuntimeError: unsupported
    operation: some elements of the input tensor and the written-to tensor refer to a single
    memory location. Please clone() the tensor before performing the operation.
"""

SEED = 847305
PROGRAM = """
v0 = torch.zeros((2, 0,), dtype=torch.float64)
v1 = v0.swapaxes(0, 1)
v3 = v1.unsqueeze(0)
v3[torch.tensor([0])] = v3
"""
