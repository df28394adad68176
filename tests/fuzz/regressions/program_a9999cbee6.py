"""Fuzzer regression (seed 853813).

Before the fix: statement 3 `v8 = v6.pow_(v5)`: error type: glassgrad RuntimeError: a leaf Variable that
    requires grad is being used in an in-place operation. / PyTorch TypeError: pow_() received
    an invalid combination of arguments - got (tuple), but expected one of:
"""

SEED = 853813
PROGRAM = """
v4 = torch.tensor([1.22271, 0.00323714, -1.41317], dtype=torch.float32, requires_grad=True)
v5 = torch.meshgrid(v4, indexing='xy')
v6 = torch.tensor([[-1.37281, 0.688143, 1.14633], [0.449922, -0.410883, -0.0187276]], dtype=torch.float32, requires_grad=True)
v8 = v6.pow_(v5)
"""
