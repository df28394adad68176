"""Fuzzer regression (fuzz-views, seed 76802).

Before the fix: statement 4 `v7[None] = v3`: error: glassgrad raised RuntimeError: unsupported operation: some
    elements of the input tensor and the written-to tensor refer to a single memory location.
    Please clone() the tensor before performing the operation.
"""

SEED = 76802
PROGRAM = """
v1 = torch.tensor([[0.103361, 1.94654, -0.248273, 0.0148367], [0.231691, -0.963193, -1.30862, 1.74908], [-0.583793, -1.42835, -1.06374, 0.794964]], dtype=torch.float64)
v2 = torch.tensor([[1.0, 1.0, 1.0, 1.0], [1.0, -1.0, 1.0, 1.0], [1.0, 1.0, -1.0, 1.0]], dtype=torch.float64)
v3 = torch.nn.functional.soft_margin_loss(v1, v2, reduction='sum')
v7 = v3.reshape(-1)
v7[None] = v3
"""
