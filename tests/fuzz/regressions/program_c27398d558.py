"""Fuzzer regression (seed 30548).

Before the fix: statement 3 `v3 = v2 ** v2`: error: PyTorch raised NotImplementedError: "pow" not implemented
    for 'Bool' (bool ** bool tensors computed a logical power)
"""

SEED = 30548
PROGRAM = """
v2 = torch.tensor([True, False, True])
v3 = v2 ** v2
v4 = torch.pow(True, v2)
"""
