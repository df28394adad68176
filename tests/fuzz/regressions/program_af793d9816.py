"""Fuzzer regression (seed 30338).

Before the fix: phase gradgrad[0]: value: infinities differ: glassgrad [inf -inf nan 0. nan -inf] / PyTorch [inf
    -4.40092956e+32 nan 0. nan -inf] (trigamma at the poles: PyTorch's calc_trigamma gives a
    large finite value where sin(pi x) rounds away from 0)
"""

SEED = 30338
PROGRAM = """
v2 = torch.tensor([0.0, -1.0, float('-inf'), float('inf'), float('nan'), 1e-300], dtype=torch.float64, requires_grad=True)
v3 = torch.lgamma(v2)
"""
