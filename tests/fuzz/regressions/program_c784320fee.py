"""Fuzzer regression (seed 155155).

Before the fix: statement 4 `v3[None] = v5`: error: glassgrad raised RuntimeError: unsupported operation: some
    elements of the input tensor and the written-to tensor refer to a single memory location.
    Please clone() the tensor before performing the operation.
"""

SEED = 155155
PROGRAM = """
v0 = torch.tensor([0.470898, 2.17895, 0.692687, 0.312942], dtype=torch.float64)
v2 = torch.tensor([[-0.926049, 0.214702], [-0.827532, -0.615132], [0.720085, -0.797226], [0.91721, -1.29417]], dtype=torch.float64, requires_grad=True)
v3 = v0 @ v2
v4, v5 = v3.split(1, 0)
v3[None] = v5
"""
