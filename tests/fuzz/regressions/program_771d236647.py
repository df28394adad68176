"""Fuzzer regression (seed 1662).

Before the fix: found: before: statement 4 `v4[...] = v4`: error: glassgrad raised RuntimeError: unsupported
    operation: more than one element of the written-to tensor refers to a single memory
    location. Please clone() the tensor before performing the operation.
"""

SEED = 1662
PROGRAM = """
v0 = torch.tensor(-0.9514, dtype=torch.float32, requires_grad=True)
v1 = v0.squeeze()
v2 = v1.expand(2, *v1.shape)
v4 = v2.data
v4[...] = v4
"""
