"""Fuzzer regression (seed 75996).

Before the fix: statement 3 `v12 = torch.complex(v11, v7)` v12: value: NaN where the other has none: real + 1j *
    imag made an infinite imaginary part's real part NaN
"""

SEED = 75996
PROGRAM = """
v6 = torch.tensor([8.0, 0.0, -3.0, float('inf')], dtype=torch.float32, requires_grad=True)
v7, v8 = v6.frexp()
v11 = torch.tensor([[0.792201], [-0.550378], [-0.833615]], dtype=torch.float32, requires_grad=True)
v12 = torch.complex(v11, v7)
"""
