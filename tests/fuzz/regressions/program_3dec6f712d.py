"""Fuzzer regression (seed 751126).

Before the fix: statement 2 `v6 = v4.hypot_(v5)`: error: glassgrad raised NotImplementedError: "hypot_cpu" not
    implemented for 'Long'
"""

SEED = 751126
PROGRAM = """
v3 = torch.tensor([[2.8443, 1.75087, 6.68898, -4.27178, 0.619809], [3.68407, 5.72606, -5.12036, -1.33682, -6.3124], [-2.01964, -3.16892, 4.80327, -7.46854, -0.377816]], dtype=torch.float64, requires_grad=True)
v4, v5 = torch.kthvalue(v3, 3, 0, True)
v6 = v4.hypot_(v5)
"""
