"""Fuzzer regression (seed 30400).

Before the fix: phase grad requires_grad: flags: glassgrad [True], PyTorch [False]
"""

SEED = 30400
PROGRAM = """
v0 = torch.tensor([[0.21841, 1.44287, 0.0978392, -0.228574], [0.809129, -0.610246, 1.27557, -0.115006], [-0.995516, 0.549478, -0.423337, 0.896228], [1.34109, -1.61974, 1.94441, -0.948441]], dtype=torch.float64, requires_grad=True)
v1, v2 = torch.linalg.slogdet(v0)
v2.detach_()
"""
