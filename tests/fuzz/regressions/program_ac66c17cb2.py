"""Fuzzer regression (seed 70080).

Before the fix: phase backward v0.grad: value: NaN where the other has none: every element NaN in glassgrad,
    only the NaN gradient's window in PyTorch (adaptive_avg_pool1d's backward was a dense matrix
    product)
"""

SEED = 70080
PROGRAM = """
v0 = torch.tensor([[[-0.967979, -0.949534, -0.327098, 0.70632, 1.77235, 1.8428, -0.206742], [0.701827, 0.0870033, -0.949513, 0.709942, -1.37228, -0.213586, -1.35971]]], dtype=torch.float64, requires_grad=True)
v1 = torch.nn.functional.adaptive_avg_pool1d(v0, (2,))
v6 = torch.tensor([[-1.50097, -0.0988494], [1.362, 0.444346]], dtype=torch.float64, requires_grad=True)
v7 = v1.pow_(v6)
"""
