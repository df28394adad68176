"""Fuzzer regression (fuzz-views, seed 74732).

Before the fix: statement 4 `v4[1:] = v7`: error: glassgrad raised RuntimeError: A view was created in no_grad
    mode and is being modified inplace with grad mode enabled. This view is the output of a
    function that returns multiple views. Such functions do not allow the output views to be
    modified inplace. You should replace the inplace operation by an out-of-place one.
"""

SEED = 74732
PROGRAM = """
v0 = torch.isclose(torch.tensor([2, -3, 1, 3, 2], dtype=torch.int64), torch.tensor([-3, 3, -2, -3, 2], dtype=torch.int64))
v1, v2 = v0.chunk(2, 0)
v4 = v1[..., :1]
v7 = torch.zeros((0,), dtype=torch.float32, requires_grad=True)
v4[1:] = v7
"""
