"""Fuzzer regression (seed 31000).

Before the fix: hook h1: count: glassgrad 2, PyTorch 3 (ormqr's backward recomputed Q from the reflectors;
    PyTorch's ormqr_backward reads the result, so a hook on it sees the second derivative; all
    four left/transpose cases)
"""

SEED = 31000
PROGRAM = """
v1 = torch.tensor([[1.2, -0.3, 0.5], [0.4, 0.9, -1.1], [-0.7, 0.2, 0.8], [0.3, -1.4, 0.6]], dtype=torch.float64, requires_grad=True)
v2 = torch.tensor([1.3, 1.1, 0.4], dtype=torch.float64, requires_grad=True)
v3 = torch.tensor([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.7], [0.9, -0.6]], dtype=torch.float64, requires_grad=True)
v4 = torch.ormqr(v1, v2, v3)
_ = v4.register_hook(hook('h1'))
v5 = torch.ormqr(v1, v2, v3, True, True)
_ = v5.register_hook(hook('h2'))
v6 = torch.ormqr(v1, v2, v3.mT, False)
_ = v6.register_hook(hook('h3'))
v7 = torch.ormqr(v1, v2, v3.mT, False, True)
_ = v7.register_hook(hook('h4'))
"""
