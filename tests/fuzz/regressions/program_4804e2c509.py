"""Fuzzer regression (fuzz-views, seed 71319).

Before the fix: phase gradgrad: error: PyTorch raised RuntimeError: cannot reshape tensor of 0 elements into
    shape [0, -1] because the unspecified dimension size -1 can be any value and is ambiguous (a
    PyTorch bug, now in skips.PYTORCH_BUGS)
"""

SEED = 71319
PROGRAM = """
v0 = torch.tensor([[-0.11932, -0.403814, -0.212758], [-0.535812, 0.961161, -0.716743]], dtype=torch.float64, requires_grad=True)
v3 = torch.nn.functional.embedding(torch.zeros((0,), dtype=torch.int64), v0.reshape((3, 2)))
v5 = v3.arccos_()
"""
