"""Fuzzer regression (seed 703142).

Before the fix: statement 1 `v9 = v8.fmod_(v8)`: error type: glassgrad RuntimeError: ZeroDivisionError / PyTorch
    NotImplementedError: "fmod_cpu" not implemented for 'Bool'
"""

SEED = 703142
PROGRAM = """
v8 = torch.bitwise_xor(torch.tensor([[False, True, False, True], [True, True, False, True], [False, True, False, True]], dtype=torch.bool), torch.tensor([[True, False, False, True], [False, True, True, True], [True, False, False, False]], dtype=torch.bool))
v9 = v8.fmod_(v8)
"""
