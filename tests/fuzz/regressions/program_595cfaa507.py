"""Fuzzer regression (seed 700193).

Before the fix: phase grad: error: glassgrad raised RuntimeError: derivative for aten::heaviside is not
    implemented
"""

SEED = 700193
PROGRAM = """
v0 = torch.tensor([[-0.928498], [-1.31092], [-0.38507]], dtype=torch.float64)
v3 = v0.detach()
v5 = v3.clamp_(-1.0, 1.0)
v6 = v5[:, 1:]
v10 = torch.tensor(2.15214, dtype=torch.float64, requires_grad=True)
v11 = v6.heaviside_(v10)
"""
