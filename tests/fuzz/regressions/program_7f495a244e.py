"""Fuzzer regression (seed 1144).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: one of the variables needed
    for gradient computation has been modified by an inplace operation: [torch.LongTensor [2]]
    is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the
    operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True,
    c
"""

SEED = 1144
PROGRAM = """
v5 = torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], dtype=torch.float64, requires_grad=True)
v6, v7 = torch.max(v5, 1)
v8 = v7 >= v7
v7[[0, 0]] += v8
"""
