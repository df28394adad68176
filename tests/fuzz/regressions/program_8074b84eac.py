"""Fuzzer regression (seed 410653).

Before the fix: phase backward v7.grad: value: NaN where the other has none: [[ 0.64682135  0.32095453
    -1.71922748 -0.65377948]  [-1.79533814  0.2104475  -0.55364122  0.56252645]] / [[ 0.64682135
    nan -1.71922748 -0.65377948]  [        nan         nan -0.55364122  0.56252645]]
"""

SEED = 410653
PROGRAM = """
v2 = torch.tensor([[1.0, float('nan'), 3.0], [2.0, 2.0, float('nan')]], dtype=torch.float64)
v7 = torch.tensor([[0.953588, -1.1745, -0.843802, -0.129035], [0.760452, -1.91024, 0.404319, 0.364399]], dtype=torch.float64, requires_grad=True)
v8 = torch.scatter_reduce(v2, 1, torch.tensor([[0, 1, 0, 2], [2, 2, 1, 0]], dtype=torch.int64), v7, 'amin')
"""
