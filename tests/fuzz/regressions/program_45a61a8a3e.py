"""Fuzzer regression (fuzz-views, seed 71660).

Before the fix: statement 3 `v8 = v5.copy_(v7)`: error: glassgrad raised RuntimeError: A view was created in
    no_grad mode and is being modified inplace with grad mode enabled. This view is the output
    of a function that returns multiple views. Such functions do not allow the output views to
    be modified inplace. You should replace the inplace operation by an out-of-place one.
"""

SEED = 71660
PROGRAM = """
v3 = torch.isin(torch.tensor([[1, 2, 3], [4, 5, 2]], dtype=torch.int64), torch.tensor([2, 5], dtype=torch.int64))
v4, v5, v6 = v3.split(1, 1)
v7 = torch.tensor(-0.694314, dtype=torch.float64, requires_grad=True)
v8 = v5.copy_(v7)
"""
