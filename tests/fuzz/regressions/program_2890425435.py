"""Fuzzer regression (seed 151223).

Before the fix: phase backward: error: glassgrad raised RuntimeError: unsupported operation: more than one
    element of the written-to tensor refers to a single memory location. Please clone() the
    tensor before performing the operation.
"""

SEED = 151223
PROGRAM = """
v1 = torch.tensor([[0.080078, -0.216957, 0.671559, -0.554808], [0.0961114, -0.418083, -0.603651, -0.566145], [-0.556009, -0.602595, 0.886289, -0.455175]], dtype=torch.float32)
v2 = torch.acos_(v1)
v3 = v2.unsqueeze(-1)
v4 = v3.expand((3, 4, 3))
v7 = torch.tensor([[0.599908], [0.640945], [1.24489], [0.974498]], dtype=torch.float64, requires_grad=True)
v4[[0, 0]] += v7
"""
