"""Fuzzer regression (seed 2841).

Before the fix: found: before: statement 1 `v15 = torch.sign(v7)` v15: value: NaN where the other has none: [[
    1. nan -1.  1.]
"""

SEED = 2841
PROGRAM = """
v7 = torch.tensor([[0.629633, float('nan'), -0.139788, 1.4917], [0.918509, 1.02133, float('inf'), 0.775151], [-0.83064, -0.581117, 1.1468, float('-inf')]], dtype=torch.float32)
v15 = torch.sign(v7)
"""
