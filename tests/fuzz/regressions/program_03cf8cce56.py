"""Fuzzer regression (seed 152489).

Before the fix: statement 2 `v0[1:] = v1`: error: glassgrad raised RuntimeError: in-place write: this tensor's
    memory is read-only
"""

SEED = 152489
PROGRAM = """
v0 = torch.isclose(torch.tensor([True, True, False, True], dtype=torch.bool), torch.tensor([True, True, False, False], dtype=torch.bool))
v1 = torch.tensor([-0.523239, 0.667135, -0.139499], dtype=torch.float64)
v0[1:] = v1
"""
