"""Fuzzer regression (seed 76468).

Before the fix: phase grad[0]: value: NaN where the other has none: smooth_l1_loss's backward took sign(d) for a
    NaN d, PyTorch's kernel d / beta; then its double backward
"""

SEED = 76468
PROGRAM = """
v2 = torch.tensor([[float('nan'), 0.599774, -0.356109, -2.57509], [float('nan'), 1.12765, -0.239202, -0.660532], [float('nan'), -0.450662, 0.732404, -1.80439]], dtype=torch.float64, requires_grad=True)
v8 = torch.tensor([-0.433166, 1.27889, 0.53327, -0.208346], dtype=torch.float64, requires_grad=True)
v9 = torch.nn.functional.smooth_l1_loss(v2, v8)
"""
