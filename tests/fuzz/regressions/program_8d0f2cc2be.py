"""Fuzzer regression (fuzz-strides, seed 120404).

Before the fix: phase backward: error: glassgrad raised RuntimeError: unsupported operation: more than one
    element of the written-to tensor refers to a single memory location. Please clone() the
    tensor before performing the operation.
"""

SEED = 120404
PROGRAM = """
v1 = torch.tensor([[-0.530122, -0.0228727, -0.339213, 0.736439], [-0.822569, -0.380407, -0.0654293, -0.698553], [0.823833, 0.376607, -0.425346, 0.660338]], dtype=torch.float64)
v2 = torch.asin_(v1)
v3 = v2.reshape(-1)
v4 = v3.expand(2, *v3.shape)
v8 = torch.tensor([[-0.211851, -0.586046], [-0.605432, -1.10624]], dtype=torch.float64, requires_grad=True)
v4[:, [0, 0]] = v8
"""
