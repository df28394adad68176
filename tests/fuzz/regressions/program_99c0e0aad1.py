"""Fuzzer regression (seed 905762).

Before the fix: statement 2 `v2 = torch.threshold_(v1, 0.2, -4.0)`: error: glassgrad raised RuntimeError:
    unsupported operation: more than one element of the written-to tensor refers to a single
    memory location. Please clone() the tensor before performing the operation.
"""

SEED = 905762
PROGRAM = """
v0 = torch.tensor([[-1.53521], [-1.77382], [-0.710225]], dtype=torch.float32)
v1 = v0.expand(3, 4)
v2 = torch.threshold_(v1, 0.2, -4.0)
"""
