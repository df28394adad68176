"""Fuzzer regression (seed 71949).

Before the fix: phase backward v4.grad: value: NaN where the other has none: nan_to_num's backward gave 0 where
    PyTorch's grad * isfinite(x) gives NaN
"""

SEED = 71949
PROGRAM = """
v4 = torch.tensor([[-0.352348, float('nan'), 0.339726], [float('nan'), -0.181001, 0.406926]], dtype=torch.float64, requires_grad=True)
v5 = v4.nan_to_num()
v8 = torch.tensor([2.00048, -0.88486, 0.253396], dtype=torch.float32)
v9 = torch.xlogy(v8, v5)
"""
