"""Fuzzer regression (seed 806009).

Before the fix: phase backward: error: glassgrad raised RuntimeError: one of the variables needed for gradient
    computation has been modified by an inplace operation: [torch.DoubleTensor [3]] is at
    version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation
    that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True,
"""

SEED = 806009
PROGRAM = """
v0 = torch.tensor([-0.787741, 0.967198, -0.484485], dtype=torch.float64, requires_grad=True)
v1 = v0.detach().view(-1)
v5 = v1.ldexp_(v0)
"""
