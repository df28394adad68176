"""Fuzzer regression (seed 503699).

Before the fix: phase backward v0.grad: value: NaN where the other has none: [[nan nan nan]  [nan nan nan]] / [[
    nan         nan -1.80549087]  [        nan         nan  3.84572374]]
"""

SEED = 503699
PROGRAM = """
v0 = torch.tensor([[1.50404, 0.267422, 0.214369], [1.5091, 1.1285, 1.49735]], dtype=torch.float64, requires_grad=True)
v1, v2 = torch.qr(v0, False)
v8 = 2.0 / v2
"""
