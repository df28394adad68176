"""Fuzzer regression (seed 2514).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: Trying to use a saved tensor
    that has been detached in-place, i.e. with .detach_().This is not supported, please use out-
    of-place `.detach()` instead
"""

SEED = 2514
PROGRAM = """
v7 = torch.tensor([[-0.429156, -0.223553, 0.216346, -0.904279], [0.958923, 1.32081, -1.37278, -1.12352], [1.53925, 0.297743, 0.383024, -1.66659]], dtype=torch.float64, requires_grad=True)
v8 = torch.sign(v7)
v11 = torch.nn.functional.leaky_relu_(v8, negative_slope=0.2)
v12 = v8 ** v11
v8.detach_()
"""
