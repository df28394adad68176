"""Fuzzer regression (fuzz-views, seed 80165).

Before the fix: statement 4 `v2[1:] = v4`: error: glassgrad raised RuntimeError: A view was created in no_grad
    mode and is being modified inplace with grad mode enabled. This view is the output of a
    function that returns multiple views. Such functions do not allow the output views to be
    modified inplace. You should replace the inplace operation by an out-of-place one.
"""

SEED = 80165
PROGRAM = """
v0 = torch.zeros((0,), dtype=torch.float64, requires_grad=True)
v1 = v0 >= v0
v2, v3 = v1.chunk(2, 0)
v4 = torch.zeros((0,), dtype=torch.float64, requires_grad=True)
v2[1:] = v4
"""
