"""Fuzzer regression (seed 1690).

Before the fix: found: before: phase gradgrad: error: PyTorch raised RuntimeError: Expected a proper Tensor but
    got None (or an undefined Tensor in C++) for argument #1 'other'
"""

SEED = 1690
PROGRAM = """
v4 = torch.tensor([[-0.457312, -1.08518, -0.966219, -0.283725], [-0.889791, 1.28064, -1.39437, -1.84583], [0.0635471, -0.509045, -0.213237, 0.40672]], dtype=torch.float64, requires_grad=True)
v5 = torch.tensor([[0.955038, 0.576794, -0.137605, 0.669811]], dtype=torch.float64, requires_grad=True)
v6 = torch.index_add(v4, 0, torch.tensor([2], dtype=torch.int64), v5, alpha=2.5)
v9 = v5.squeeze()
v11 = torch.nn.functional.layer_norm(v6, (4,), None, v9)
"""
