"""Fuzzer regression (seed 74127).

Before the fix: statement 3 `v15 = torch.bucketize(v6, v2)` v15: value: glassgrad [[3 0 0 3] [1 1 3 1] [3 3 1
    1]], PyTorch [[3 0 0 3] [1 1 1 1] [3 3 1 1]] (unsorted boundaries: NumPy's search, not
    ATen's halving)
"""

SEED = 74127
PROGRAM = """
v0 = torch.tensor([[1.90059, -0.391367, -0.427588], [-0.490082, 0.381722, 0.230331]], dtype=torch.float64)
v1, v2 = v0.unbind(0)
v6 = torch.tensor([[0.810918, -1.45153, -1.92074, 0.688475], [-0.446828, 0.0404257, 0.330042, 0.217846], [1.14937, 0.454234, 0.349413, -0.0762574]], dtype=torch.float64, requires_grad=True)
v15 = torch.bucketize(v6, v2)
"""
