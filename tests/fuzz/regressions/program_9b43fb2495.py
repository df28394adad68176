"""Fuzzer regression (fuzz-views, seed 76275).

Before the fix: statement 3 `v1[:] = v2`: error: glassgrad raised RuntimeError: unsupported operation: some
    elements of the input tensor and the written-to tensor refer to a single memory location.
    Please clone() the tensor before performing the operation.
"""

SEED = 76275
PROGRAM = """
v0 = torch.tensor([[-0.187716, 0.0770943, 0.0918123], [0.754035, 1.70717, -0.429553], [1.67544, 1.04553, 1.16658], [0.0420154, -0.177687, 1.47679]], dtype=torch.float64)
v1 = torch.nn.functional.pdist(v0, 0.0)
v2 = v1[3]
v1[:] = v2
"""
