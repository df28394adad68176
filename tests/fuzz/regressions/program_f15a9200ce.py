"""Fuzzer regression (seed 50003).

Before the fix: statement 2 `v7[None] = v7`: error: glassgrad raised RuntimeError: unsupported operation: more
    than one element of the written-to tensor refers to a single memory location (PyTorch's
    setitem expands the value first, and copy_ of the very same memory returns early)
"""

SEED = 50003
PROGRAM = """
v5 = torch.tensor(0.792225, dtype=torch.float64)
v7 = v5.expand(2, *v5.shape)
v7[None] = v7
"""
