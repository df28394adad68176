"""Fuzzer regression (seed 200181).

Before the fix: phase backward v1.grad: value: NaN where the other has none: [[nan nan nan]  [nan nan nan]] / [[
    nan         nan -2.82174884]  [        nan         nan  1.27978959]]
"""

SEED = 200181
PROGRAM = """
v1 = torch.tensor([[0.0590221, -0.44579, 0.380498], [-0.911371, 1.18517, 0.368629]], dtype=torch.float64, requires_grad=True)
v2, v3 = v1.qr(False)
v4 = v3 ** v3
"""
