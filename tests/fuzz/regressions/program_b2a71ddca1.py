"""Fuzzer regression (seed 710505).

Before the fix: phase backward: error type: glassgrad RuntimeError: one of the variables needed for gradient
    computation has been modified by an inplace operation: [torch.DoubleTensor [5]], which is
    output 0 of Add, is at version 1; expected version 0 instead. Hint: enable anomaly detection
    to find the operation that failed to compute its gradient, with torch.autogr / PyTorch
    NotImplementedError: the derivative for 'igamma: input' is not implemented.
"""

SEED = 710505
PROGRAM = """
v4 = torch.tensor([0.0, 1.0, 2.0, 0.5, -1.0], dtype=torch.float64, requires_grad=True)
v5 = torch.tensor([0.0, 0.0, float('inf'), -1.0, 2.0], dtype=torch.float64)
v6 = torch.igamma(v4, v5)
v7 = torch.tensor([0.0516694, -0.226124, 0.97012, 2.02219, 1.3114], dtype=torch.float64, requires_grad=True)
v8 = v5.add_(v7)
"""
