"""Fuzzer regression (seed 701613).

Before the fix: phase grad requires_grad: flags: glassgrad [False, False, False, False], PyTorch [True, True,
    True, False]
"""

SEED = 701613
PROGRAM = """
v1 = torch.tensor([[-0.552332, 0.822756, 1.21282, -0.550902], [0.676383, -1.63787, -0.571878, 0.0982859], [0.0979441, -0.392419, -0.0817139, 0.314859]], dtype=torch.float64, requires_grad=True)
v2 = torch.tensor([[-1.73227, 0.649328], [0.663897, -0.0741313], [-1.31197, 1.40714], [0.411947, -0.0292608]], dtype=torch.float64, requires_grad=True)
v9 = torch.tensor([[0.209221, 1.05502, -0.7049], [-0.283716, 1.60202, -1.09854], [-0.573372, 0.612698, 1.65946], [-0.150553, 0.747738, 1.31831]], dtype=torch.float64, requires_grad=True)
v10 = torch.tensor([[0.8944, -1.35521], [0.430335, -1.21262], [-0.838503, 0.929533], [0.705613, -0.296539]], dtype=torch.float64)
v11, v12, v13, v14 = torch.linalg.lstsq((v9 + 1j * v1.reshape((4, 3))), (v10 + 1j * v2), driver='gelsd')
v20 = torch.tensor(0.387312, dtype=torch.float64, requires_grad=True)
v12[:] = v20
"""
