"""Fuzzer regression (seed 410999).

Before the fix: statement 5 `v10, v11 = torch.histogramdd(v8, [v2, v5], weight=v9)`: error: glassgrad raised
    ValueError: `bins[0]` must be monotonically increasing, when an array
"""

SEED = 410999
PROGRAM = """
v1 = torch.tensor([[1.63097, 0.817245, -0.875691, -0.287723], [0.243005, 2.11049, 0.381571, 0.748775], [2.37555, -2.53752, -0.233599, 0.861155]], dtype=torch.float64, requires_grad=True)
v2 = v1.sum(1)
v5 = torch.tensor([1.61013, 1.85437], dtype=torch.float64)
v8 = torch.tensor([[-0.422097, -1.2066], [1.0202, -1.09675], [0.612396, -1.24117], [-0.172257, 0.530499], [-0.603103, 1.12614], [1.0225, -1.06586]], dtype=torch.float64)
v9 = torch.tensor([0.550137, 0.691929, 0.659999, 0.847271, 0.679581, 0.849549], dtype=torch.float64)
v10, v11 = torch.histogramdd(v8, [v2, v5], weight=v9)
"""
